// The customer page (/t/<token>): complete first HTML, languages, queue position and wait, the
// buttons without JavaScript, final states, privacy, security headers, limits and budget.
import { test, before, after } from 'node:test';
import assert from 'node:assert/strict';
import { startTestApp, type TestApp } from '../helpers/app.ts';
import { FakeClock } from '../helpers/clock.ts';
import { openPage, pathOf } from '../helpers/live.ts';

let t: TestApp;
const clock = new FakeClock();
before(async () => {
  // A page that never confirms costs a ready call this deadline.
  t = await startTestApp({ clock, env: { RING_DEADLINE_MS: '300' } });
});
after(() => t.close());

const create = async (body: Record<string, unknown> = {}, key?: string) => {
  const r = await t.request('POST', '/v1/tickets', { body, key });
  assert.equal(r.status, 201, r.text);
  return r.body;
};
const get = (path: string, headers: Record<string, string> = {}) => fetch(t.url + path, { headers, redirect: 'manual' });
const html = async (ticketUrl: string, lang = 'en') => (await get(pathOf(ticketUrl), { 'accept-language': lang })).text();
const form = (path: string, body: string) =>
  fetch(t.url + path, { method: 'POST', headers: { 'content-type': 'application/x-www-form-urlencoded' }, body, redirect: 'manual' });

test('the first response is the whole page: number, status, security headers, one deferred script', async () => {
  const tk = await create();
  const res = await get(pathOf(tk.url));
  assert.equal(res.status, 200);
  assert.match(res.headers.get('content-type') ?? '', /^text\/html/);
  assert.equal(res.headers.get('referrer-policy'), 'no-referrer');
  assert.equal(res.headers.get('cache-control'), 'no-store');
  const csp = res.headers.get('content-security-policy') ?? '';
  assert.match(csp, /script-src 'self'/);
  assert.ok(!csp.includes('unsafe-inline'));
  assert.match(csp, /frame-ancestors 'none'/);
  const body = await res.text();
  assert.match(body, new RegExp(`<p class="num" id="num">${tk.display_number}</p>`));
  assert.match(body, /We’re preparing your order/);
  assert.match(body, /<html lang="en" data-state="created">/);
  const scripts = [...body.matchAll(/<script([^>]*)>/g)].map((m) => m[1]!);
  assert.ok(
    scripts.length >= 1 && scripts.every((s) => /src="\/[^"]+" defer/.test(s)),
    'only external, deferred scripts (CSP without inline script)',
  );
  assert.match(body, /<noscript><meta http-equiv="refresh" content="30"><\/noscript>/, 'refreshes itself without JavaScript');
  assert.match(body, /aria-live="assertive"/);
});

test('opening the link records the first view once (ticket.customer_viewed)', async () => {
  const tk = await create();
  await html(tk.url);
  await html(tk.url);
  const got = (await t.request('GET', `/v1/tickets/${tk.id}`)).body;
  assert.ok(got.customer.viewed_at);
  const events = (await t.request('GET', '/v1/events?type=ticket.customer_viewed&limit=100')).body.data.filter(
    (e: any) => e.data.object.id === tk.id,
  );
  assert.equal(events.length, 1);
});

test('language: Accept-Language among en, fr, es, de; otherwise the branch default', async () => {
  const tk = await create();
  assert.match(await html(tk.url, 'fr-CA,fr;q=0.9,en;q=0.5'), /<html lang="fr"[\s\S]*Nous préparons votre commande/);
  assert.match(await html(tk.url, 'de-DE'), /<html lang="de"[\s\S]*Wir bereiten Ihre Bestellung zu/);
  assert.match(await html(tk.url, 'es'), /<html lang="es"[\s\S]*Estamos preparando su pedido/);
  assert.match(await html(tk.url, 'ja'), /<html lang="en"/);
  const patched = await t.request('PATCH', '/v1/branch', { key: t.tenant.liveKey, body: { customer_page: { language: 'de' } } });
  assert.equal(patched.status, 200, patched.text);
  const tk2 = await create();
  // Branch settings are cached for a few seconds on the live side.
  t.app.live.data.branchChanged(t.tenant.branchId);
  assert.match(await html(tk2.url, 'ja'), /<html lang="de"/);
  assert.match(await html(tk2.url, 'fr'), /<html lang="fr"/);
  await t.request('PATCH', '/v1/branch', { key: t.tenant.liveKey, body: { customer_page: { language: 'en' } } });
  t.app.live.data.branchChanged(t.tenant.branchId);
});

test('position in the queue and the estimated wait from recent preparation times, live', async () => {
  const q = await t.request('POST', '/v1/queues', { body: { name: 'Pos' } });
  assert.equal(q.status, 201);
  // History: three tickets prepared in 6 minutes each.
  for (let i = 0; i < 3; i++) {
    const old = await create({ queue: 'Pos' });
    clock.advance(6 * 60_000);
    await t.request('POST', `/v1/tickets/${old.id}/ready`);
    await t.request('POST', `/v1/tickets/${old.id}/collect`);
  }
  const first = await create({ queue: 'Pos' });
  const second = await create({ queue: 'Pos' });
  const third = await create({ queue: 'Pos' });
  const page = await openPage(t, third.url);
  assert.equal(page.snapshot.position, 3);
  assert.equal(page.snapshot.position_text, '2 orders ahead of you');
  assert.equal(page.snapshot.wait_text, 'Estimated wait: about 6 min');
  assert.match(await html(second.url), /1 order ahead of you/);
  await t.request('POST', `/v1/tickets/${first.id}/ready`);
  const moved = await page.next('snapshot', (v) => v.position === 2);
  assert.equal(moved.data.position_text, '1 order ahead of you');
  await t.request('POST', `/v1/tickets/${second.id}/cancel`);
  const next = await page.next('snapshot', (v) => v.position === 1);
  assert.equal(next.data.position_text, 'You’re next');
  page.close();
});

test('without JavaScript: "On my way" and "Need 5 more minutes" are plain forms that work', async () => {
  const tk = await create();
  await t.request('POST', `/v1/tickets/${tk.id}/ready`);
  const base = pathOf(tk.url);
  const ready = await html(tk.url);
  assert.match(ready, new RegExp(`<form method="post" action="${base}/acknowledge">`));
  assert.match(
    ready,
    new RegExp(`<form method="post" action="${base}/snooze" class="snooze"><input type="hidden" name="minutes" value="5">`),
  );
  const snooze = await form(`${base}/snooze`, 'minutes=5');
  assert.equal(snooze.status, 303);
  assert.equal(snooze.headers.get('location'), base);
  assert.match(await html(tk.url), /data-state="snoozed"[\s\S]*We’ll ring you again at \d\d:\d\d/);
  const ack = await form(`${base}/acknowledge`, '');
  assert.equal(ack.status, 303);
  assert.match(await html(tk.url), /data-state="acknowledged"[\s\S]*See you at the counter/);
  const got = (await t.request('GET', `/v1/tickets/${tk.id}`)).body;
  assert.ok(got.customer.acknowledged_at);
});

test('with JavaScript the buttons answer JSON; bad input is a problem, not a crash', async () => {
  const tk = await create();
  const base = pathOf(tk.url);
  const early = await fetch(`${t.url}${base}/acknowledge`, { method: 'POST', headers: { accept: 'application/json' } });
  assert.equal(early.status, 409);
  assert.equal((await early.json()).ticket_status, 'created');
  await t.request('POST', `/v1/tickets/${tk.id}/ready`);
  for (const minutes of [0, 600, 'soon']) {
    const bad = await fetch(`${t.url}${base}/snooze`, {
      method: 'POST',
      headers: { accept: 'application/json', 'content-type': 'application/json' },
      body: JSON.stringify({ minutes }),
    });
    assert.equal(bad.status, 422, String(minutes));
  }
  const ok = await fetch(`${t.url}${base}/snooze`, {
    method: 'POST',
    headers: { accept: 'application/json', 'content-type': 'application/json' },
    body: JSON.stringify({ minutes: 5 }),
  });
  assert.equal(ok.status, 200);
  assert.equal((await ok.json()).state, 'snoozed');
});

test('final states: collected, cancelled (reason not shown), expired; buttons then go back to the page', async () => {
  const a = await create();
  await t.request('POST', `/v1/tickets/${a.id}/collect`);
  assert.match(await html(a.url), /data-state="collected"[\s\S]*Picked up. Enjoy!/);
  const b = await create();
  await t.request('POST', `/v1/tickets/${b.id}/cancel`, { body: { reason: 'Out of oat milk' } });
  const cancelled = await html(b.url);
  assert.match(cancelled, /This order was cancelled/);
  assert.ok(!cancelled.includes('oat milk'));
  assert.ok(!cancelled.includes('http-equiv="refresh"'), 'a closed ticket stops refreshing');
  const back = await form(`${pathOf(b.url)}/acknowledge`, '');
  assert.equal(back.status, 303);
  const page = await openPage(t, b.url);
  assert.deepEqual([page.snapshot.state, page.snapshot.open], ['cancelled', false]);
  page.close();
  const c = await create();
  clock.advance(13 * 60 * 60 * 1000);
  assert.ok((await t.app.maintenance.expireDue()) >= 1);
  assert.match(await html(c.url), /data-state="expired"[\s\S]*This ticket has expired/);
});

test('no personal data: phone, external reference and metadata never reach the page', async () => {
  const tk = await create({ external_ref: 'ORDER-SECRET-77', customer_phone: '+15551234567', metadata: { name: 'Alice Example' } });
  const body = await html(tk.url);
  const page = await openPage(t, tk.url);
  for (const secret of ['ORDER-SECRET-77', '+15551234567', '5551234567', 'Alice Example', tk.id]) {
    assert.ok(!body.includes(secret), `HTML leaks ${secret}`);
    assert.ok(!JSON.stringify(page.snapshot).includes(secret), `snapshot leaks ${secret}`);
  }
  page.close();
});

test('unknown, malformed and long-closed links get a friendly 404 page', async () => {
  for (const path of ['/t/AAAAAAAAAAAAAAAAAAAAAAAAAA', '/t/nope', '/t/%E0%A4%A']) {
    const r = await get(path, { 'accept-language': 'fr' });
    assert.equal(r.status, path.includes('%E0') ? 400 : 404, path);
    if (r.status === 404) {
      assert.match(r.headers.get('content-type') ?? '', /text\/html/);
      assert.match(await r.text(), /Ce lien n’est pas actif/);
    }
  }
  const tk = await create();
  await t.request('POST', `/v1/tickets/${tk.id}/collect`);
  assert.equal((await get(pathOf(tk.url))).status, 200, 'recently closed: the final state');
  clock.advance(25 * 60 * 60 * 1000);
  const old = await get(pathOf(tk.url));
  assert.equal(old.status, 404);
  assert.match(await old.text(), /This link is not active/);
  assert.equal((await get(`${pathOf(tk.url)}/events`)).status, 404);
});

test('the whole first load (HTML, script, icon, manifest, service worker) is under 50 KB', async () => {
  const tk = await create();
  const res = await get(pathOf(tk.url));
  const page = await res.text();
  const size = (r: Response, body: ArrayBuffer | string) =>
    (typeof body === 'string' ? Buffer.byteLength(body) : body.byteLength) +
    [...r.headers].reduce((n, [k, v]) => n + k.length + v.length + 4, 0);
  let total = size(res, page);
  const refs = [...page.matchAll(/(?:src|href)="(\/[^"]+)"/g)]
    .map((m) => m[1]!)
    .filter((p) => !p.includes('/acknowledge') && !p.includes('/snooze') && p !== pathOf(tk.url));
  refs.push('/sw.js');
  assert.ok(refs.some((r) => r.startsWith('/assets/customer.js')));
  for (const ref of new Set(refs)) {
    const r = await get(ref);
    assert.equal(r.status, 200, ref);
    total += size(r, await r.arrayBuffer());
  }
  assert.ok(total < 50 * 1024, `first load is ${total} bytes`);
  const manifest = await (await get(`${pathOf(tk.url)}/manifest.webmanifest`)).json();
  assert.equal(manifest.start_url, pathOf(tk.url));
  assert.equal(manifest.display, 'standalone');
});

test('versioned assets are cached for a year; the service worker is revalidated', async () => {
  const page = await html((await create()).url);
  const js = /src="(\/assets\/customer\.js\?v=[^"]+)"/.exec(page)![1]!;
  assert.match((await get(js)).headers.get('cache-control') ?? '', /immutable/);
  const sw = await get('/sw.js');
  assert.equal(sw.headers.get('cache-control'), 'no-cache');
  assert.match(await sw.text(), /PUSH/);
  assert.equal((await get('/assets/nope.js')).status, 404);
});

test('each link has its own generous bucket: 429 with Retry-After past it, other links unaffected', async () => {
  const tk = await create();
  const other = await create();
  let last: Response | null = null;
  for (let i = 0; i < 125; i++) {
    last = await get(pathOf(tk.url));
    if (last.status === 429) break;
    await last.arrayBuffer();
  }
  assert.equal(last!.status, 429);
  assert.ok(Number(last!.headers.get('retry-after')) >= 1);
  assert.match(await last!.text(), /Too many requests/);
  assert.equal((await get(pathOf(other.url))).status, 200);
});

test("a ring confirmation from another ticket's page does not count for this one", async () => {
  const victim = await create();
  const attacker = await create();
  const page = await openPage(t, victim.url, { ack: false });
  page.on('ring', (e) => void t.request('POST', `${pathOf(attacker.url)}/ring-ack`, { key: null, body: { ring_id: e.data.ring_id } }));
  const r = await t.request('POST', `/v1/tickets/${victim.id}/ready`, { headers: {} });
  assert.deepEqual([r.body.rang, r.body.channel_used], [false, 'none']);
  const bad = await t.request('POST', `${pathOf(victim.url)}/ring-ack`, { key: null, body: { ring_id: 'nope' } });
  assert.equal(bad.status, 422);
  page.close();
});

test('a link printed before tokens carried their time prefix (26 characters) still opens its page', async () => {
  const tk = await create();
  const old = 'ABCDEFGHIJKLMNOPQRSTUVWXYZ';
  await t.app.services.db.write((tx) => tx.run('UPDATE tickets SET token = $1 WHERE id = $2', [old, tk.id]));
  const res = await get(`/t/${old}`);
  assert.equal(res.status, 200);
  assert.match(await res.text(), new RegExp(`<p class="num" id="num">${tk.display_number}</p>`));
});
