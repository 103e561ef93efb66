// GET /v1/stream with an API key, as the integrator guide shows it: a POS behind NAT listens for
// its branch's changes in its key's mode instead of polling, and fetches the objects it needs.
import { test, after, before } from 'node:test';
import assert from 'node:assert/strict';
import { startTestApp, type TestApp } from '../helpers/app.ts';
import { openSse } from '../helpers/sse-client.ts';

let t: TestApp;
before(async () => {
  t = await startTestApp();
});
after(() => t.close());

test("an API key streams its branch's changes in its own mode, as the guide shows", async () => {
  const sse = await openSse(`${t.url}/v1/stream`, { authorization: `Bearer ${t.tenant.testKey}` });
  try {
    assert.equal(sse.status, 200);
    assert.deepEqual((await sse.next('ready')).data, { branch: t.tenant.branchId, livemode: false });
    await t.request('POST', '/v1/tickets', { key: t.tenant.liveKey, body: { queue: 'A' } });
    const tk = (await t.request('POST', '/v1/tickets', { body: { queue: 'A', external_ref: '1001' } })).body;
    await t.request('POST', `/v1/tickets/${tk.id}/ready`);
    await t.request('POST', `/v1/tickets/${tk.id}/collect`);
    const types: string[] = [];
    for (;;) {
      const e = await sse.next('message');
      assert.equal(e.data.ticket_id, tk.id, "only the key's mode: the live ticket is not streamed to a test key");
      assert.equal(e.data.display_number, tk.display_number);
      types.push(e.data.type);
      if (e.data.type === 'ticket.rung')
        assert.deepEqual(Object.keys(e.data.ring).sort(), ['call_out_loud', 'channel_used', 'channels', 'id', 'rang', 'reason', 'seq']);
      if (e.data.type === 'ticket.collected') break;
    }
    assert.deepEqual(types, ['ticket.created', 'ticket.ringing', 'ticket.rung', 'ticket.collected']);
  } finally {
    sse.close();
  }
});
