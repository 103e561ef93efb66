// The `push` channel: Web Push (RFC 8030) with VAPID (RFC 8292) and aes128gcm payloads
// (RFC 8291). The web-push library builds each request (JWT, encryption, headers); the request
// itself goes out with the app's outbound HTTP client (webhooks/http-client.ts), which checks the
// push service's addresses as it connects (the connection goes to the address that was checked: no
// second lookup for DNS rebinding to answer), never follows redirects, and is bounded by its own
// timeout rather than the ring deadline (see send-once.ts).
//
// A ring whose send was interrupted by a crash is sent again (send-once.ts): the same Topic makes
// the push service replace a copy it still holds, and the service worker (web/push/push-sw.js)
// alerts once per `ring_id`, so the customer is never alerted twice for one ring.
//
// In test mode a ticket may instead hold a subscription to the push service readybell simulates
// (simulated-push.ts): it goes through the same claim and record, and is accepted without a send.
import webpush from 'web-push';
import type { FastifyBaseLogger as Logger } from 'fastify';
import type { Channel } from './ringer.ts';
import type { ChannelAttempt, RingRequest } from '../core/ring.ts';
import type { Config } from '../core/config.ts';
import type { Db } from '../core/db.ts';
import type { Clock } from '../core/clock.ts';
import type { Ticket } from '../core/ticket.ts';
import { getBranch } from '../store/tenancy.ts';
import { deletePushSubscription, listPushSubscriptions, type PushSubscriptionRecord } from '../store/push-subscriptions.ts';
import { ticketUrl } from '../contract/present.ts';
import { endpointProblem } from '../domain/push-subscription.ts';
import { CONNECT_TIMEOUT_MS, type OutboundHttpClient } from '../webhooks/http-client.ts';
import { ringTexts, shortBranchName } from '../i18n/ring-texts.ts';
import { sendOnce, type SendOnceDeps, type SendOutcome } from './send-once.ts';
import { isSimulatedPush, simulatedPushSend } from './simulated-push.ts';
import type { Metrics } from '../core/metrics.ts';
import type { VapidKeyStore, VapidKeys } from './vapid.ts';

export type PushDeps = {
  db: Db;
  clock: Clock;
  log: Logger;
  config: Config;
  vapid: VapidKeyStore;
  http: OutboundHttpClient;
  metrics?: Metrics;
};

/** What the service worker (web/push/push-sw.js) receives, decrypted, in its `push` event. */
export type PushPayload = {
  type: 'ring';
  ring_id: string;
  ticket_id: string;
  display_number: string;
  title: string;
  body: string;
  url: string;
  reason: string;
  seq: number;
};

export class PushChannel implements Channel {
  readonly name = 'push' as const;
  private readonly deps: PushDeps;
  private readonly once: SendOnceDeps;

  constructor(deps: PushDeps) {
    this.deps = deps;
    this.once = { db: deps.db, clock: deps.clock, sendTimeoutMs: deps.config.ring.sendTimeoutMs, metrics: deps.metrics };
  }

  async ring(request: RingRequest, signal: AbortSignal): Promise<ChannelAttempt> {
    const { db } = this.deps;
    const { ticket } = request;
    const subs = await listPushSubscriptions(db, ticket.branchId, ticket.mode, ticket.id);
    if (subs.length === 0) return { channel: 'push', delivered: false, detail: 'no subscription' };
    const payload = JSON.stringify(await this.payload(request));
    const keys = await this.deps.vapid.get();
    const sends = subs.map((sub) =>
      sendOnce(this.once, { ringId: request.ringId, channel: 'push', target: sub.id }, ticket.id, signal, 'resend', async () =>
        isSimulatedPush(sub) ? simulatedPushSend(request) : this.send(sub, payload, keys, ticket),
      ),
    );
    return firstDelivered(sends);
  }

  private async payload(request: RingRequest): Promise<PushPayload> {
    const { ticket } = request;
    const branch = request.first?.branch ?? (await getBranch(this.deps.db, ticket.branchId));
    const texts = ringTexts(branch?.settings.customer_page.language ?? 'en');
    return {
      type: 'ring',
      ring_id: request.ringId,
      ticket_id: ticket.id,
      display_number: ticket.displayNumber,
      title: texts.title(ticket.displayNumber),
      body: texts.body(shortBranchName(branch?.name ?? '')),
      url: ticketUrl(this.deps.config.publicUrl, ticket.token),
      reason: request.reason,
      seq: request.seq,
    };
  }

  private async send(sub: PushSubscriptionRecord, payload: string, keys: VapidKeys, ticket: Ticket): Promise<SendOutcome> {
    const { config, log } = this.deps;
    const allowInsecure = config.push.allowInsecureEndpoints;
    // The subscription's rules again (https, port 443, no private name), for one stored before them.
    const problem = endpointProblem(sub.endpoint, allowInsecure);
    if (problem !== null) return { delivered: false, detail: `refused: ${problem}` };
    const host = new URL(sub.endpoint).hostname;
    const details = webpush.generateRequestDetails({ endpoint: sub.endpoint, keys: { p256dh: sub.p256dh, auth: sub.auth } }, payload, {
      TTL: config.push.ttlSeconds,
      urgency: 'high',
      // One topic per ticket: a newer ring, or this one sent again after a crash, replaces a copy
      // the push service still holds.
      topic: ticket.id,
      vapidDetails: { subject: keys.subject, publicKey: keys.publicKey, privateKey: keys.privateKey },
    });
    const headers: Record<string, string> = {};
    for (const [k, v] of Object.entries(details.headers)) if (k.toLowerCase() !== 'content-length') headers[k] = String(v);
    // The whole send, name lookup included, is bounded: the stale-claim limit relies on it.
    const res = await this.deps.http.post(sub.endpoint, headers, details.body === null ? '' : new Uint8Array(details.body), {
      allowPrivate: allowInsecure,
      timeoutMs: config.ring.sendTimeoutMs,
      // The name lookup and the connection: a push service that cannot be reached frees the ring's
      // slot as soon as a webhook's would (webhooks/deliver.ts).
      connectTimeoutMs: Math.min(CONNECT_TIMEOUT_MS, config.ring.sendTimeoutMs),
    });
    if (res.statusCode === null) return { delivered: false, detail: res.error ?? 'no answer' };
    if (res.statusCode === 201) return { delivered: true, detail: 'accepted' };
    if (res.statusCode === 404 || res.statusCode === 410) {
      // The browser unsubscribed or the subscription expired: it will never work again.
      await this.deps.db.write((tx) => deletePushSubscription(tx, sub.id));
      return { delivered: false, detail: `gone (${res.statusCode}); subscription removed` };
    }
    log.warn({ push_host: host, status: res.statusCode }, 'push service refused a ring');
    return { delivered: false, detail: `rejected (${res.statusCode})` };
  }
}

/**
 * "Push reached the customer" as soon as one subscription's push service accepted the ring; the
 * other sends finish in the background and record their own outcomes.
 */
function firstDelivered(sends: Array<Promise<SendOutcome | null>>): Promise<ChannelAttempt> {
  return new Promise((resolve) => {
    let left = sends.length;
    let pending = false;
    const details: string[] = [];
    const settle = (o: SendOutcome | null): void => {
      if (o?.delivered) resolve({ channel: 'push', delivered: true, detail: o.detail });
      if (o === null) pending = true;
      details.push(o?.detail ?? 'pending');
      if (--left === 0) resolve({ channel: 'push', delivered: false, detail: details.join('; '), ...(pending ? { pending } : {}) });
    };
    for (const s of sends) s.then(settle, (err: Error) => settle({ delivered: false, detail: `error: ${err.message}` }));
  });
}
