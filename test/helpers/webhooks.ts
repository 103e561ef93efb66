// Shared steps of the webhook tests: an app on a fake clock whose test endpoints may reach the
// receiver on 127.0.0.1, and small wrappers over the API calls the tests repeat.
import assert from 'node:assert/strict';
import { startTestApp, type Substitutes, type TestApp } from './app.ts';
import { FakeClock } from './clock.ts';
import { WebhookReceiver } from './webhook-receiver.ts';
import type { ResolvedAddress } from '../../src/core/host-lookup.ts';

export type WebhookWorld = { t: TestApp; clock: FakeClock; receiver: WebhookReceiver; close(): Promise<void> };

export async function startWebhookWorld(env: Record<string, string> = {}, substitutes: Substitutes = {}): Promise<WebhookWorld> {
  const clock = new FakeClock();
  // PostgreSQL's default refuses private targets; the receiver lives on 127.0.0.1.
  const t = await startTestApp({ clock, env: { WEBHOOK_ALLOW_PRIVATE: 'true', ...env }, ...substitutes });
  const receiver = await new WebhookReceiver().start();
  receiver.nowSeconds = () => Math.floor(clock.now() / 1000);
  return {
    t,
    clock,
    receiver,
    async close() {
      await receiver.close();
      await t.close();
    },
  };
}

/** A resolver for the names in `table` (read at every lookup); anything else fails like an unknown name. */
export function fakeLookup(table: Record<string, string>): (host: string) => Promise<ResolvedAddress[]> {
  return async (host) => {
    const address = table[host];
    if (address === undefined) throw Object.assign(new Error(`getaddrinfo ENOTFOUND ${host}`), { code: 'ENOTFOUND' });
    return [{ address, family: address.includes(':') ? 6 : 4 }];
  };
}

export async function createEndpoint(
  t: TestApp,
  body: Record<string, unknown>,
  key?: string,
): Promise<{ id: string; secret: string; body: any }> {
  const res = await t.request('POST', '/v1/webhook_endpoints', { body, key });
  assert.equal(res.status, 201, res.text);
  return { id: res.body.id, secret: res.body.secret, body: res.body };
}

export async function createTicket(t: TestApp, key?: string, headers?: Record<string, string>): Promise<string> {
  const res = await t.request('POST', '/v1/tickets', { body: { queue: 'A' }, key, headers });
  assert.equal(res.status, 201, res.text);
  return res.body.id;
}

export async function deliveriesOf(t: TestApp, endpointId: string, key?: string): Promise<any[]> {
  const res = await t.request('GET', `/v1/webhook_endpoints/${endpointId}/deliveries?limit=100`, { key });
  assert.equal(res.status, 200, res.text);
  return res.body.data;
}
