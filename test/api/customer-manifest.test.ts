// The customer page can be added to a phone's Home Screen (which iOS requires before it delivers
// Web Push): its web app manifest names the ticket and the shop, reopens this ticket standalone,
// and lists PNG icons (rendered at build time) that are really there in the sizes it says; an
// iPhone finds its 180 px icon. The browser's own verdict is in test/e2e/customer-page.e2e.ts.
// One engine: the manifest and its icons are rendered from the ticket the same way whichever store it came from.
import { test, before, after } from 'node:test';
import assert from 'node:assert/strict';
import sharp from 'sharp';
import { startTestApp, type TestApp } from '../helpers/app.ts';
import { pathOf } from '../helpers/live.ts';

const SHOP = 'Café Lumière — Gare du Nord';
let t: TestApp;
before(async () => {
  t = await startTestApp();
  assert.equal((await t.request('PATCH', '/v1/branch', { key: t.tenant.liveKey, body: { name: SHOP } })).status, 200);
  t.app.live.data.branchChanged(t.tenant.branchId);
});
after(() => t?.close());

const get = (path: string, headers: Record<string, string> = {}) => fetch(t.url + path, { headers });

/** The image a URL serves: its declared type and what it really is. */
async function image(url: string) {
  const res = await get(url);
  assert.equal(res.status, 200, url);
  const meta = await sharp(Buffer.from(await res.arrayBuffer())).metadata();
  return { type: res.headers.get('content-type'), format: meta.format, width: meta.width, height: meta.height, hasAlpha: meta.hasAlpha };
}

test("the page links a valid web app manifest: the shop's name, standalone, reopening this ticket within its scope", async () => {
  const tk = (await t.request('POST', '/v1/tickets', { body: {} })).body;
  const base = pathOf(tk.url);
  const page = await get(base, { 'accept-language': 'en' });
  assert.match(page.headers.get('content-security-policy') ?? '', /manifest-src 'self'/);
  const href = /<link rel="manifest" href="([^"]+)">/.exec(await page.text())?.[1];
  assert.ok(href, 'the page links its manifest');
  const manifestUrl = new URL(href.replaceAll('&amp;', '&'), t.url + base);

  const res = await get(manifestUrl.pathname + manifestUrl.search);
  assert.equal(res.status, 200);
  assert.match(res.headers.get('content-type') ?? '', /^application\/manifest\+json/);
  const m = await res.json();
  assert.equal(m.name, `Order ${tk.display_number} · ${SHOP}`);
  assert.equal(m.short_name, tk.display_number);
  assert.equal(m.display, 'standalone');
  assert.equal(m.lang, 'en');
  const start = new URL(m.start_url, manifestUrl);
  const scope = new URL(m.scope, manifestUrl);
  assert.equal(start.origin, new URL(t.url).origin);
  assert.equal(start.pathname, base, 'start_url reopens this ticket');
  assert.equal(scope.origin, start.origin);
  assert.ok(start.pathname.startsWith(scope.pathname), 'start_url lies within scope');
  assert.equal(new URL(m.id, start).pathname, base, 'each ticket installs as an app of its own');
  const reopened = await get(start.pathname);
  assert.equal(reopened.status, 200);
  assert.match(await reopened.text(), new RegExp(`<p class="num" id="num">${tk.display_number}</p>`));

  const fr = await (await get(`${base}/manifest.webmanifest?lang=fr`)).json();
  assert.equal(fr.name, `Commande ${tk.display_number} · ${SHOP}`, "named in the page's language");
});

test("the manifest's PNG icons, 192 and 512, are fetchable in the sizes and types it declares", async () => {
  const tk = (await t.request('POST', '/v1/tickets', { body: {} })).body;
  const m = await (await get(`${pathOf(tk.url)}/manifest.webmanifest`)).json();
  const pngs = m.icons.filter((i: { type: string }) => i.type === 'image/png');
  assert.deepEqual(pngs.map((i: { sizes: string }) => i.sizes).sort(), ['192x192', '512x512']);
  for (const icon of m.icons as Array<{ src: string; sizes: string; type: string }>) {
    const got = await image(icon.src);
    assert.equal(got.type, icon.type, icon.src);
    if (icon.type === 'image/png') {
      assert.equal(got.format, 'png', icon.src);
      assert.equal(`${got.width}x${got.height}`, icon.sizes, icon.src);
    }
  }
});

test('an iPhone finds a 180 px opaque apple-touch-icon', async () => {
  const tk = (await t.request('POST', '/v1/tickets', { body: {} })).body;
  const html = await (await get(pathOf(tk.url))).text();
  const href = /<link rel="apple-touch-icon" href="([^"]+)">/.exec(html)?.[1];
  assert.ok(href, 'the page links an apple-touch-icon');
  const got = await image(href);
  assert.deepEqual([got.type, got.format, got.width, got.height], ['image/png', 'png', 180, 180]);
  assert.equal(got.hasAlpha, false, 'opaque: iOS shows transparent corners black');
});
