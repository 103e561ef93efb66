// Every forbidden transition over HTTP: 409 ticket-state-conflict with the current status, and
// nothing changes. The table is written from PRODUCT.md §2, not derived from the state machine
// module, so it checks the implementation against the contract rather than against itself.
import { test, before, after } from 'node:test';
import assert from 'node:assert/strict';
import { startTestApp, type TestApp } from '../helpers/app.ts';
import { FakeClock } from '../helpers/clock.ts';
import { createTicket, snapshot } from '../helpers/tickets.ts';

type State = 'created' | 'ready' | 'collected' | 'cancelled' | 'expired';
type Op = 'ready' | 'ring' | 'collect' | 'cancel';

const STATES: State[] = ['created', 'ready', 'collected', 'cancelled', 'expired'];
const ALLOWED: Record<Op, State[]> = {
  ready: ['created'],
  ring: ['ready'],
  collect: ['created', 'ready'],
  cancel: ['created', 'ready'],
};
const OPS = Object.keys(ALLOWED) as Op[];

const clock = new FakeClock();
let t: TestApp;
let expiredId: string;

before(async () => {
  t = await startTestApp({ clock });
  // An expired ticket comes from the expiry job, after the branch's expiry (12 h by default).
  expiredId = (await createTicket(t)).id;
  clock.advance(12 * 3600_000 + 1);
  assert.equal(await t.app.maintenance.expireDue(), 1);
});
after(() => t.close());

async function ticketIn(state: State): Promise<string> {
  if (state === 'expired') return expiredId;
  const { id } = await createTicket(t);
  const step: Record<Exclude<State, 'created' | 'expired'>, string> = { ready: 'ready', collected: 'collect', cancelled: 'cancel' };
  if (state !== 'created') assert.equal((await t.request('POST', `/v1/tickets/${id}/${step[state]}`)).status, 200);
  return id;
}

test('the expiry job moved the old ticket to expired', async () => {
  const res = await t.request('GET', `/v1/tickets/${expiredId}`);
  assert.equal(res.body.status, 'expired');
  assert.equal(res.body.expired_at, new Date(clock.now()).toISOString());
});

for (const op of OPS) {
  for (const state of STATES.filter((s) => !ALLOWED[op].includes(s))) {
    test(`${op} on a ${state} ticket is 409 ticket-state-conflict and changes nothing`, async () => {
      const id = await ticketIn(state);
      const before = await snapshot(t, t.tenant.branchId);
      // Once plainly, once with an Idempotency-Key (the answer then comes from the stored record).
      for (const headers of [undefined, { 'idempotency-key': `${op}-${state}-${id}` }]) {
        const res = await t.request('POST', `/v1/tickets/${id}/${op}`, { headers });
        assert.equal(res.status, 409, res.text);
        assert.match(res.headers.get('content-type') ?? '', /^application\/problem\+json/);
        assert.equal(res.body.code, 'ticket-state-conflict');
        assert.equal(res.body.type, '/problems/ticket-state-conflict');
        assert.equal(res.body.ticket_status, state);
        assert.ok(res.body.detail.includes(state), res.body.detail);
      }
      assert.deepEqual(await snapshot(t, t.tenant.branchId), before);
      assert.equal((await t.request('GET', `/v1/tickets/${id}`)).body.status, state);
    });
  }
}

test('every allowed transition succeeds', async () => {
  for (const op of OPS) {
    for (const state of ALLOWED[op]) {
      const id = await ticketIn(state);
      clock.advance(10_000); // a manual ring needs 10 s since the ready ring
      const res = await t.request('POST', `/v1/tickets/${id}/${op}`);
      assert.equal(res.status, 200, `${op} from ${state}: ${res.text}`);
    }
  }
});
