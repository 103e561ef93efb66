// Owner insights over HTTP (PRODUCT.md §13, issue 17): the figures of a period in the branch's
// own calendar, across time zones and daylight-saving changes, moved by a fake clock; the
// comparison; rings, channels and customers' answers; the CSV export; who may read them; bad
// input; and that a rebuild from the tickets gives back what the live counting kept.
//
// Every create sends an Idempotency-Key: on PostgreSQL a create without one takes the batched
// statement of decision 0010, which does not count insights yet (decision 0025).
import { test, before, after } from 'node:test';
import assert from 'node:assert/strict';
import { randomUUID } from 'node:crypto';
import { startTestApp, type Res, type TestApp } from '../helpers/app.ts';
import { FakeClock } from '../helpers/clock.ts';
import { asSession, signInOk } from '../helpers/session.ts';
import { rebuildInsights } from '../../src/actions/rebuild-insights.ts';
import { foldShards } from '../../src/store/insights-rollups.ts';

const clock = new FakeClock();
let t: TestApp;
before(async () => {
  t = await startTestApp({ clock, env: { RATE_LIMIT_WRITES_BURST: '10000', RATE_LIMIT_READS_BURST: '10000' } });
});
after(() => t.close());

const at = (iso: string): number => Date.parse(iso);

/** A tenant's test key, with one verb per thing a POS or a customer does, each at a given instant. */
async function shop(timezone: string) {
  const tenant = await t.newTenant({ timezone });
  const key = tenant.testKey;
  const ok = async (res: Res, status = 200): Promise<any> => {
    assert.equal(res.status, status, res.text);
    return res.body;
  };
  const post = (path: string, body: unknown = {}) => t.request('POST', path, { key, body, headers: { 'idempotency-key': randomUUID() } });
  return {
    tenant,
    key,
    async create(when: string, body: Record<string, unknown> = {}): Promise<any> {
      clock.set(at(when));
      return ok(await post('/v1/tickets', body), 201);
    },
    async act(id: string, verb: 'ready' | 'ring' | 'collect' | 'cancel', when: string): Promise<any> {
      clock.set(at(when));
      return ok(await post(`/v1/tickets/${id}/${verb}`));
    },
    async customer(id: string, action: string, when: string, body: Record<string, unknown> = {}): Promise<any> {
      clock.set(at(when));
      return ok(await post(`/v1/test_helpers/tickets/${id}/customer/${action}`, body));
    },
    async get(path: string, when: string): Promise<any> {
      clock.set(at(when));
      return ok(await t.request('GET', path, { key }));
    },
  };
}

const hour = (r: any, h: number) => r.data.find((e: any) => e.hour === h).figures;
const day = (r: any, d: string) => r.data.find((e: any) => e.date === d).figures;

test('a day in Paris: counts, open tickets, preparation and pickup times, by local day and hour', async () => {
  const s = await shop('Europe/Paris'); // UTC+1 in November
  const t1 = await s.create('2026-11-18T11:30:00Z'); // 12:30 in Paris
  await s.act(t1.id, 'ready', '2026-11-18T11:38:00Z'); // prepared in 8 min
  await s.act(t1.id, 'collect', '2026-11-18T11:40:00Z'); // picked up in 2 min
  const t2 = await s.create('2026-11-18T11:45:00Z');
  await s.act(t2.id, 'ready', '2026-11-18T11:50:00Z'); // 5 min
  await s.act(t2.id, 'collect', '2026-11-18T12:10:00Z'); // 20 min, at 13:10 in Paris
  const t3 = await s.create('2026-11-18T12:05:00Z');
  await s.act(t3.id, 'ready', '2026-11-18T12:20:00Z'); // 15 min; never collected
  const t4 = await s.create('2026-11-18T12:10:00Z');
  await s.act(t4.id, 'cancel', '2026-11-18T12:12:00Z');
  await s.create('2026-11-18T22:30:00Z'); // 23:30 in Paris: still open
  await s.create('2026-11-18T23:10:00Z'); // 00:10 on the 19th in Paris: another day

  const q = '?from=2026-11-18&to=2026-11-18';
  const now = '2026-11-19T10:00:00Z';
  const summary = await s.get(`/v1/insights${q}`, now);
  assert.equal(summary.object, 'insights');
  assert.equal(summary.timezone, 'Europe/Paris');
  assert.deepEqual(summary.period, { from: '2026-11-18', to: '2026-11-18', days: 1 });
  const f = summary.figures;
  assert.deepEqual([f.created, f.ready, f.collected, f.cancelled, f.expired, f.open], [5, 3, 2, 1, 0, 2]);
  assert.equal(f.preparation.count, 3);
  assert.equal(f.preparation.longest_seconds, 15 * 60, 'the longest is exact');
  assert.equal(f.preparation.mean_seconds, ((5 + 8 + 15) * 60) / 3, 'and so is the mean');
  assert.ok(
    f.preparation.median_seconds >= 7 * 60 && f.preparation.median_seconds < 10 * 60,
    `median of 5, 8, 15 min within 8 min's bucket: ${f.preparation.median_seconds}`,
  );
  assert.equal(f.pickup.count, 2);
  assert.equal(f.pickup.longest_seconds, 20 * 60);
  assert.ok(f.pickup.median_seconds >= 120 && f.pickup.median_seconds < 150, `median of 2 and 20 min: ${f.pickup.median_seconds}`);
  assert.equal(summary.comparison.kind, 'previous_period');
  assert.deepEqual([summary.comparison.from, summary.comparison.to, summary.comparison.through], ['2026-11-17', '2026-11-17', null]);
  assert.equal(summary.comparison.figures.created, 0);

  const hours = await s.get(`/v1/insights/hours${q}`, now);
  assert.equal(hours.data.length, 24);
  assert.deepEqual([hour(hours, 12).created, hour(hours, 12).collected, hour(hours, 12).ready], [2, 1, 2], 'local 12:00–13:00: t1 and t2');
  assert.deepEqual([hour(hours, 13).created, hour(hours, 13).collected, hour(hours, 13).cancelled, hour(hours, 13).ready], [2, 1, 1, 1]);
  assert.deepEqual([hour(hours, 23).created, hour(hours, 23).open], [1, 1]);
  assert.equal(hour(hours, 11).created, 0, 'nothing at 11:00 UTC counts at 11 in Paris');

  const days = await s.get('/v1/insights/days?from=2026-11-17&to=2026-11-19', now);
  assert.deepEqual(
    days.data.map((d: any) => [d.date, d.weekday, d.figures.created]),
    [
      ['2026-11-17', 2, 0],
      ['2026-11-18', 3, 5],
      ['2026-11-19', 4, 1],
    ],
  );

  const grid = await s.get(`/v1/insights/weekday_hours${q}`, now);
  assert.equal(grid.data.length, 168);
  assert.equal(grid.data.find((c: any) => c.weekday === 3 && c.hour === 12).figures.created, 2, 'Wednesday 12:00');
  assert.equal(
    grid.data.reduce((n: number, c: any) => n + c.figures.created, 0),
    5,
  );

  const queueB = await s.get(`/v1/insights${q}&queue=B`, now);
  assert.equal(queueB.figures.created, 0, 'one queue: only its own tickets');
  assert.equal((await s.get(`/v1/insights${q}&queue=A`, now)).figures.created, 5);
});

test('creates with and without an Idempotency-Key count alike, concurrent ones included (one create path)', async () => {
  const s = await shop('Europe/Paris');
  clock.set(at('2026-11-10T09:15:00Z'));
  const keyed = Array.from({ length: 10 }, () =>
    t.request('POST', '/v1/tickets', { key: s.key, body: {}, headers: { 'idempotency-key': randomUUID() } }),
  );
  const unkeyed = Array.from({ length: 10 }, () => t.request('POST', '/v1/tickets', { key: s.key, body: {} }));
  for (const res of await Promise.all([...keyed, ...unkeyed])) assert.equal(res.status, 201, res.text);
  const hours = await s.get('/v1/insights/hours?from=2026-11-10&to=2026-11-10', '2026-11-10T12:00:00Z');
  assert.equal(hour(hours, 10).created, 20);
});

test('half-hour zones and a zone changed on the way: each change counts in the local hour of its moment', async () => {
  const kolkata = await shop('Asia/Kolkata'); // UTC+5:30
  await kolkata.create('2026-11-18T06:20:00Z'); // 11:50
  await kolkata.create('2026-11-18T18:40:00Z'); // 00:10 on the 19th
  const hours = await kolkata.get('/v1/insights/hours?from=2026-11-18&to=2026-11-19', '2026-11-20T00:00:00Z');
  assert.equal(hour(hours, 11).created, 1);
  assert.equal(hour(hours, 0).created, 1);
  const days = await kolkata.get('/v1/insights/days?from=2026-11-18&to=2026-11-19', '2026-11-20T00:00:00Z');
  assert.deepEqual(
    days.data.map((d: any) => d.figures.created),
    [1, 1],
  );

  const moved = await shop('UTC');
  await moved.create('2026-11-18T03:00:00Z'); // 03 in UTC
  clock.set(at('2026-11-18T03:10:00Z'));
  assert.equal((await t.request('PATCH', '/v1/branch', { key: moved.tenant.liveKey, body: { timezone: 'Asia/Tokyo' } })).status, 200);
  await moved.create('2026-11-18T03:30:00Z'); // 12:30 in Tokyo, counted as such at once
  const after = await moved.get('/v1/insights/hours?from=2026-11-18&to=2026-11-18', '2026-11-19T00:00:00Z');
  assert.equal(after.timezone, 'Asia/Tokyo');
  assert.equal(hour(after, 3).created, 1, 'the change before the move keeps the hour it was counted in');
  assert.equal(hour(after, 12).created, 1);
});

test('daylight saving in Paris: a 25-hour day counts its repeated hour twice, a 23-hour day has no 2 am, times are real durations', async () => {
  const s = await shop('Europe/Paris');
  // 25 October 2026: at 01:00 UTC the clocks go from 03:00 CEST back to 02:00 CET.
  await s.create('2026-10-24T22:10:00Z'); // 00:10 CEST on the 25th
  const first = await s.create('2026-10-25T00:50:00Z'); // 02:50 CEST
  await s.act(first.id, 'ready', '2026-10-25T01:10:00Z'); // 02:10 CET: 20 minutes later, not 40 minutes earlier
  await s.create('2026-10-25T01:30:00Z'); // 02:30 CET, the second 2 am
  await s.create('2026-10-25T22:50:00Z'); // 23:50 CET on the 25th
  await s.create('2026-10-25T23:10:00Z'); // 00:10 on the 26th
  const now = '2026-10-27T12:00:00Z';
  const days = await s.get('/v1/insights/days?from=2026-10-24&to=2026-10-26', now);
  assert.deepEqual(
    days.data.map((d: any) => d.figures.created),
    [0, 4, 1],
  );
  assert.equal(day(days, '2026-10-25').preparation.longest_seconds, 20 * 60);
  const fall = await s.get('/v1/insights/hours?from=2026-10-25&to=2026-10-25', now);
  assert.deepEqual(
    [0, 1, 2, 3, 23].map((h) => hour(fall, h).created),
    [1, 0, 2, 0, 1],
  );
  assert.equal(hour(fall, 2).ready, 1);

  // 29 March 2026: at 01:00 UTC the clocks go from 02:00 CET to 03:00 CEST.
  await s.create('2026-03-28T23:05:00Z'); // 00:05 CET on the 29th
  await s.create('2026-03-29T00:30:00Z'); // 01:30 CET
  await s.create('2026-03-29T01:10:00Z'); // 03:10 CEST
  await s.create('2026-03-29T22:05:00Z'); // 00:05 CEST on the 30th
  const spring = await s.get('/v1/insights/hours?from=2026-03-29&to=2026-03-29', '2026-03-31T12:00:00Z');
  assert.deepEqual(
    [0, 1, 2, 3].map((h) => hour(spring, h).created),
    [1, 1, 0, 1],
  );
  assert.equal(
    spring.data.reduce((n: number, h: any) => n + h.figures.created, 0),
    3,
    'the 23-hour day holds three tickets',
  );
  const csv = await t.request('GET', '/v1/insights/tickets.csv?from=2026-03-29&to=2026-03-29', { key: s.key });
  assert.equal(csv.text.trim().split('\r\n').length, 1 + 3, 'the export is the same 23 hours');
});

test('today against the same weekday last week, up to the same hour', async () => {
  const s = await shop('UTC');
  for (const time of ['09:00', '09:10', '09:20', '15:00', '15:30']) await s.create(`2026-11-11T${time}:00Z`); // last Wednesday
  for (const time of ['09:05', '11:40']) await s.create(`2026-11-18T${time}:00Z`); // this Wednesday, so far
  const today = await s.get('/v1/insights?from=2026-11-18&to=2026-11-18&compare=week_before', '2026-11-18T12:30:00Z');
  assert.equal(today.figures.created, 2);
  assert.deepEqual(
    { ...today.comparison, figures: undefined },
    {
      kind: 'week_before',
      from: '2026-11-11',
      to: '2026-11-11',
      days: 1,
      through: { date: '2026-11-11', hour: 12 },
      figures: undefined,
    },
  );
  assert.equal(today.comparison.figures.created, 3, 'last Wednesday until 12:59, not its afternoon');
  const defaults = await s.get('/v1/insights', '2026-11-18T12:30:00Z');
  assert.deepEqual(defaults.period, { from: '2026-11-12', to: '2026-11-18', days: 7 }, 'the last 7 days by default, today included');
  assert.equal(defaults.figures.created, 2);
  assert.equal(defaults.comparison.figures.created, 3, 'the 7 days before, whose last day (a Wednesday) stops at 12:59 too');
});

test('rings by channel, boards calling out, "On my way" once per ticket, snoozes; a replayed create counts once', async () => {
  const s = await shop('UTC');
  clock.set(at('2026-11-20T11:59:00Z'));
  assert.equal((await t.request('PATCH', '/v1/branch', { key: s.tenant.liveKey, body: { voice: { enabled: true } } })).status, 200);
  const display = await t.request('POST', '/v1/displays', { key: s.key, body: { name: 'Counter TV' } });
  assert.equal(display.status, 201, display.text);
  assert.equal(
    (await t.request('POST', `/v1/test_helpers/displays/${display.body.id}/connect`, { key: s.key, body: { minutes: 60 } })).status,
    200,
  );

  const idem = randomUUID();
  clock.set(at('2026-11-20T12:00:00Z'));
  const pushed = (await t.request('POST', '/v1/tickets', { key: s.key, body: { external_ref: 'p' }, headers: { 'idempotency-key': idem } }))
    .body;
  const replay = await t.request('POST', '/v1/tickets', { key: s.key, body: { external_ref: 'p' }, headers: { 'idempotency-key': idem } });
  assert.equal(replay.headers.get('idempotent-replayed'), 'true');
  const paged = await s.create('2026-11-20T12:00:10Z');
  const nobody = await s.create('2026-11-20T12:00:20Z');
  await s.customer(pushed.id, 'subscribe', '2026-11-20T12:01:00Z');
  await s.customer(paged.id, 'open_page', '2026-11-20T12:01:00Z', { minutes: 30 });
  assert.equal((await s.act(pushed.id, 'ready', '2026-11-20T12:05:00Z')).channel_used, 'push');
  assert.equal((await s.act(paged.id, 'ready', '2026-11-20T12:05:00Z')).channel_used, 'page');
  const silent = await s.act(nobody.id, 'ready', '2026-11-20T12:05:00Z');
  assert.deepEqual([silent.channel_used, silent.call_out_loud], ['none', true]);
  await s.act(nobody.id, 'ring', '2026-11-20T12:06:00Z');

  await s.customer(pushed.id, 'acknowledge', '2026-11-20T12:05:30Z');
  await s.act(pushed.id, 'ring', '2026-11-20T12:07:00Z'); // rung again after "On my way"…
  await s.customer(pushed.id, 'acknowledge', '2026-11-20T12:07:30Z'); // …and answered again: still one ticket acknowledged
  await s.customer(paged.id, 'snooze', '2026-11-20T12:06:00Z', { minutes: 5 });
  await s.act(pushed.id, 'collect', '2026-11-20T12:09:00Z');

  const f = (await s.get('/v1/insights?from=2026-11-20&to=2026-11-20', '2026-11-20T13:00:00Z')).figures;
  assert.equal(f.created, 3, 'the replayed create counted once');
  assert.equal(f.ready, 3);
  assert.equal(f.rings, 5);
  assert.equal(f.rings_per_ticket, 1.67);
  assert.deepEqual(f.reached, { push: 2, wallet: 0, page: 1, sms: 0, whatsapp: 0, none: 2, unknown: 0 });
  assert.deepEqual(f.reached_share, { push: 0.4, wallet: 0, page: 0.2, sms: 0, whatsapp: 0, none: 0.4, unknown: 0 });
  assert.deepEqual([f.called_out, f.called_out_share], [5, 1]);
  assert.deepEqual([f.acknowledged, f.acknowledgement_rate, f.snoozed], [1, 0.3333, 1]);
  assert.deepEqual([f.collected, f.pickup.count, f.pickup.longest_seconds], [1, 1, 4 * 60]);
});

test('a rebuild from the tickets gives back what was counted as they changed, and fills rollups that were lost', async () => {
  const s = await shop('Europe/Paris');
  const a = await s.create('2026-11-16T08:15:00Z', { queue: 'A' });
  await s.customer(a.id, 'subscribe', '2026-11-16T08:16:00Z');
  await s.act(a.id, 'ready', '2026-11-16T08:24:00Z');
  await s.customer(a.id, 'acknowledge', '2026-11-16T08:24:40Z');
  await s.act(a.id, 'collect', '2026-11-16T08:27:00Z');
  const b = await s.create('2026-11-16T09:40:00Z');
  await s.act(b.id, 'ready', '2026-11-16T10:05:00Z');
  await s.customer(b.id, 'snooze', '2026-11-16T10:06:00Z', { minutes: 10 });
  await s.act(b.id, 'ring', '2026-11-16T10:17:00Z');
  await s.act(b.id, 'cancel', '2026-11-16T10:30:00Z');
  const c = await s.create('2026-11-17T18:00:00Z');
  await s.act(c.id, 'ready', '2026-11-17T18:03:00Z');
  clock.set(at('2026-11-18T07:00:00Z'));
  await t.app.maintenance.expireDue();
  assert.equal((await t.request('GET', `/v1/tickets/${c.id}`, { key: s.key })).body.status, 'expired');

  const now = '2026-11-19T09:00:00Z';
  const reads = async () =>
    Promise.all(['', '/days', '/hours', '/weekday_hours'].map((p) => s.get(`/v1/insights${p}?from=2026-11-15&to=2026-11-18`, now)));
  const counted = await reads();
  assert.deepEqual(
    [counted[0].figures.created, counted[0].figures.expired, counted[0].figures.snoozed, counted[0].figures.rings],
    [3, 1, 1, 4],
  );

  const reports = await rebuildInsights(t.app.services.db, s.tenant.branchId, at(now));
  assert.deepEqual(
    reports.map((r) => [r.mode, r.tickets, r.rings, r.snoozes]),
    [
      ['live', 0, 0, 0],
      ['test', 3, 4, 1],
    ],
  );
  assert.deepEqual(await reads(), counted, 'rebuilt, the answers are the same');

  await t.app.services.db.write((tx) => tx.run('DELETE FROM insight_hours WHERE branch_id = $1', [s.tenant.branchId]));
  assert.equal((await s.get('/v1/insights?from=2026-11-15&to=2026-11-18', now)).figures.created, 0);
  await rebuildInsights(t.app.services.db, s.tenant.branchId, at(now));
  assert.deepEqual(await reads(), counted, 'rollups lost (or never kept) are recomputed');
});

test('a rebuild leaves the hour under way to the live counting, and keeps snoozes the events no longer hold', async () => {
  const s = await shop('UTC');
  const old = await s.create('2026-09-01T10:00:00Z');
  await s.act(old.id, 'ready', '2026-09-01T10:05:00Z');
  await s.customer(old.id, 'snooze', '2026-09-01T10:06:00Z');
  clock.set(at('2026-11-01T00:00:00Z'));
  await t.app.services.db.write((tx) =>
    tx.run("DELETE FROM events WHERE branch_id = $1 AND type = 'ticket.customer_snoozed'", [s.tenant.branchId]),
  ); // past retention
  await s.create('2026-11-20T14:02:00Z');
  const now = at('2026-11-20T14:05:00Z');
  const reports = await rebuildInsights(t.app.services.db, s.tenant.branchId, now, ['test']);
  assert.deepEqual(reports[0]!.through, { day: '2026-11-20', hour: 13 }, 'hours before 13:55 are rebuilt: up to 13:00');
  const sept = await s.get('/v1/insights?from=2026-09-01&to=2026-09-01', '2026-11-20T14:05:00Z');
  assert.deepEqual([sept.figures.created, sept.figures.snoozed], [1, 1], 'the old snooze is kept');
  const today = await s.get('/v1/insights?from=2026-11-20&to=2026-11-20', '2026-11-20T14:05:00Z');
  assert.equal(today.figures.created, 1, 'the ticket of 14:02 is still counted once');
});

test('the rows of a past day fold into one per hour and queue (PostgreSQL), the figures unchanged', async () => {
  const s = await shop('UTC');
  for (const day of ['2026-11-04', '2026-11-06']) {
    for (let i = 0; i < 16; i++) {
      const minute = String(10 + i).padStart(2, '0');
      const tk = await s.create(`${day}T10:${minute}:00Z`);
      await s.act(tk.id, 'ready', `${day}T10:${minute}:30Z`);
      await s.act(tk.id, 'collect', `${day}T10:${minute}:50Z`);
    }
  }
  const rows = async (day: string) =>
    Number(
      (
        await t.app.services.db.query<{ n: number }>('SELECT COUNT(*) AS n FROM insight_hours WHERE branch_id = $1 AND day = $2', [
          s.tenant.branchId,
          day,
        ])
      )[0]!.n,
    );
  const now = '2026-11-07T12:00:00Z';
  const q = '/v1/insights/days?from=2026-11-04&to=2026-11-06';
  const counted = await s.get(q, now);
  const spread = await rows('2026-11-04');
  const yesterday = await rows('2026-11-06');
  if (t.app.services.db.dialect === 'postgres') assert.ok(spread > 1, `16 tickets of one hour spread over several rows: ${spread}`);
  else assert.deepEqual([spread, yesterday], [1, 1], 'one writer, one row');

  await foldShards(t.app.services.db, at(now));
  assert.equal(await rows('2026-11-04'), 1, 'two days before today (UTC), the hour is one row');
  assert.equal(await rows('2026-11-06'), yesterday, 'yesterday may still be today somewhere: left as it is');
  assert.deepEqual(await s.get(q, now), counted, 'the same figures');
  assert.deepEqual(
    counted.data.map((d: any) => [d.figures.created, d.figures.collected]),
    [
      [16, 16],
      [0, 0],
      [16, 16],
    ],
  );
});

test('who may read: API keys, managers and owners; staff get 403; each mode its own figures', async () => {
  const s = await shop('UTC');
  await s.create('2026-11-20T10:00:00Z');
  clock.set(at('2026-11-20T10:00:00Z'));
  assert.equal(
    (await t.request('POST', '/v1/tickets', { key: s.tenant.liveKey, headers: { 'idempotency-key': randomUUID() } })).status,
    201,
  );
  await t.request('POST', '/v1/tickets', { key: s.tenant.liveKey, headers: { 'idempotency-key': randomUUID() } });
  const q = '/v1/insights?from=2026-11-20&to=2026-11-20';
  clock.advance(3600_000);
  assert.equal((await t.request('GET', q, { key: s.key })).body.figures.created, 1, 'the test key sees test tickets');
  const live = await t.request('GET', q, { key: s.tenant.liveKey });
  assert.deepEqual([live.body.livemode, live.body.figures.created], [true, 2]);

  const owner = await signInOk(t, s.tenant.ownerEmail, s.tenant.ownerPassword);
  const asOwner = asSession(t, owner);
  assert.equal((await asOwner('GET', q)).body.figures.created, 2, 'a session reads live data');
  assert.equal((await asOwner('GET', q, { headers: { 'readybell-mode': 'test' } })).body.figures.created, 1);
  for (const role of ['manager', 'staff'] as const) {
    const invited = await asOwner('POST', '/v1/users', { body: { email: `${role}-${randomUUID()}@example.test`, role } });
    const session = asSession(t, await signInOk(t, invited.body.email, invited.body.password));
    for (const path of [q, `${q.replace('/insights', '/insights/days')}`, `${q.replace('/insights', '/insights/tickets.csv')}`]) {
      const res = await session('GET', path);
      if (role === 'manager') assert.equal(res.status, 200, `${role} ${path}`);
      else assert.deepEqual([res.status, res.body?.code], [403, 'forbidden'], `${role} ${path}`);
    }
  }
  const free = await t.newTenant({ plan: 'free' });
  assert.equal((await t.request('GET', q, { key: free.testKey })).body.code, 'plan-required');
});

test('bad input is a 422 problem naming the parameter', async () => {
  const s = await shop('UTC');
  clock.set(at('2026-11-20T10:00:00Z'));
  const cases: Array<[string, string]> = [
    ['from=2026-13-01', '/from'],
    ['from=2026-02-30', '/from'],
    ['to=yesterday', '/to'],
    ['from=2026-11-20&to=2026-11-19', '/query/from'],
    ['from=2025-01-01&to=2026-11-20', '/query/to'],
    ['from=2026-11-01&to=2026-11-14&compare=week_before', '/query/compare'],
    ['compare=last_year', '/compare'],
    ['queue=not a queue', '/queue'],
    ['colour=red', ''],
  ];
  for (const [query, pointer] of cases) {
    for (const path of ['/v1/insights', '/v1/insights/weekday_hours', '/v1/insights/tickets.csv']) {
      if (query.includes('compare') && path !== '/v1/insights') continue;
      const res = await t.request('GET', `${path}?${query}`, { key: s.key });
      assert.equal(res.status, 422, `${path}?${query}: ${res.text}`);
      assert.match(res.headers.get('content-type') ?? '', /^application\/problem\+json/);
      assert.equal(res.body.code, 'validation-failed');
      assert.ok(
        res.body.errors.some((e: any) => e.pointer.includes(pointer)),
        `${path}?${query}: ${JSON.stringify(res.body.errors)}`,
      );
    }
  }
});

test('the CSV export: one row per ticket of the period with its times, queue, reference, rings and channel; nothing personal', async () => {
  const s = await shop('Europe/Paris');
  clock.set(at('2026-11-21T08:00:00Z'));
  assert.equal(
    (await t.request('POST', '/v1/queues', { key: s.key, body: { name: 'DRINKS' }, headers: { 'idempotency-key': randomUUID() } })).status,
    201,
  );
  const a = await s.create('2026-11-21T09:00:00Z', {
    external_ref: '1001',
    customer_phone: '+33612345678',
    metadata: { name: 'Ada Lovelace' },
  });
  await s.customer(a.id, 'subscribe', '2026-11-21T09:01:00Z');
  await s.act(a.id, 'ready', '2026-11-21T09:10:00Z');
  await s.act(a.id, 'collect', '2026-11-21T09:12:30Z');
  const b = await s.create('2026-11-21T09:30:00Z', { external_ref: '=HYPERLINK("http://evil.example","x")', queue: 'DRINKS' });
  await s.act(b.id, 'cancel', '2026-11-21T09:31:00Z');
  await s.create('2026-11-22T09:00:00Z', { external_ref: 'next day' });

  clock.set(at('2026-11-23T09:00:00Z'));
  const res = await fetch(`${t.url}/v1/insights/tickets.csv?from=2026-11-21&to=2026-11-21`, {
    headers: { authorization: `Bearer ${s.key}` },
  });
  assert.equal(res.status, 200);
  assert.match(res.headers.get('content-type') ?? '', /^text\/csv; charset=utf-8/);
  assert.equal(res.headers.get('content-disposition'), 'attachment; filename="readybell-tickets-2026-11-21-to-2026-11-21.csv"');
  const bytes = new Uint8Array(await res.arrayBuffer());
  assert.deepEqual([...bytes.slice(0, 3)], [0xef, 0xbb, 0xbf], 'a UTF-8 byte order mark for spreadsheets');
  const text = new TextDecoder().decode(bytes.slice(3));
  assert.ok(
    !text.includes('612345678') && !text.includes('Lovelace') && !text.includes('/t/'),
    'no phone number, metadata or customer link',
  );
  const [header, ...rows] = text.trimEnd().split('\r\n');
  const cols = header!.split(',');
  assert.deepEqual(cols.slice(0, 7), ['id', 'display_number', 'queue', 'status', 'external_ref', 'created_at', 'created_local']);
  assert.equal(rows.length, 2);
  const row = (line: string) =>
    Object.fromEntries(
      line
        .match(/("([^"]|"")*"|[^,]*)(,|$)/g)!
        .slice(0, cols.length)
        .map((v, i) => [cols[i], v.replace(/,$/, '')]),
    );
  const first = row(rows[0]!);
  assert.deepEqual(
    [
      first.id,
      first.queue,
      first.status,
      first.external_ref,
      first.created_local,
      first.preparation_seconds,
      first.pickup_seconds,
      first.rings,
      first.channel_used,
      first.notifications,
    ],
    [a.id, 'A', 'collected', '1001', '2026-11-21 10:00:00', '600', '150', '1', 'push', 'push'],
  );
  assert.equal(first.ready_at, '2026-11-21T09:10:00.000Z');
  const second = row(rows[1]!);
  assert.equal(second.external_ref, `"'=HYPERLINK(""http://evil.example"",""x"")"`, 'a formula is kept as text');
  assert.deepEqual([second.queue, second.status, second.channel_used, second.pickup_seconds], ['DRINKS', 'cancelled', '', '']);

  const drinks = await t.request('GET', '/v1/insights/tickets.csv?from=2026-11-21&to=2026-11-21&queue=DRINKS', { key: s.key });
  assert.deepEqual(
    drinks.text
      .trim()
      .split('\r\n')
      .slice(1)
      .map((l) => l.split(',')[0]),
    [b.id],
  );
});

test('an export of a period longer than a page streams every ticket once, oldest first', async () => {
  const s = await shop('UTC');
  const ids: string[] = [];
  for (let i = 0; i < 520; i++) ids.push((await s.create(new Date(at('2026-11-10T08:00:00Z') + i * 1000).toISOString())).id);
  clock.set(at('2026-11-11T00:00:00Z'));
  const csv = await t.request('GET', '/v1/insights/tickets.csv?from=2026-11-10&to=2026-11-10', { key: s.key });
  assert.deepEqual(
    csv.text
      .trim()
      .split('\r\n')
      .slice(1)
      .map((l) => l.split(',')[0]),
    ids,
  );
});
