// A local fake of the Stripe endpoints readybell calls through the official `stripe` package (its
// host, port and protocol point here through STRIPE_API_URL), answering as Stripe's API reference
// documents them: POST /v1/customers, POST /v1/checkout/sessions, POST /v1/billing_portal/sessions,
// GET /v1/subscriptions (customer, status=all), DELETE /v1/subscriptions/{id}, POST
// /v1/billing/meter_events (one event per identifier: a repeat is refused, as Stripe does). Bodies are
// form-encoded with Stripe's bracket notation. The tests play Stripe's side with `subscribe`,
// `setStatus`, … and `event()`, which builds an event and signs it with the package's own
// stripe.webhooks.generateTestHeaderString, never with readybell's code. `GET /pay/{session}` is the
// Checkout page a browser reaches: it subscribes, delivers the signed event to readybell and sends
// the browser to the session's success_url.
import type { Server } from 'node:http';
import Stripe from 'stripe';
import { bodyServer } from './body-server.ts';

export const FAKE_STRIPE = {
  SECRET_KEY: 'sk_test_readybellfake',
  WEBHOOK_SECRET: 'whsec_readybellfaketestsecret',
  PRO_MONTHLY: 'price_pro_monthly',
  PRO_YEARLY: 'price_pro_yearly',
  BUSINESS_MONTHLY: 'price_business_monthly',
};

export type FakeSubscription = {
  id: string;
  object: 'subscription';
  customer: string;
  status: string;
  created: number;
  cancel_at_period_end: boolean;
  trial_end: number | null;
  metadata: Record<string, string>;
  items: {
    object: 'list';
    data: Array<{
      id: string;
      object: 'subscription_item';
      price: { id: string; object: 'price' };
      current_period_start: number;
      current_period_end: number;
    }>;
  };
};
export type StripeCall = { method: string; path: string; form: URLSearchParams; idempotencyKey: string | undefined };
export type CheckoutSession = {
  id: string;
  customer: string;
  price: string;
  accountId: string;
  trialDays: number | null;
  /** subscription_data.trial_end (seconds), which Stripe takes over trial_period_days. */
  trialEnd: number | null;
  successUrl: string;
  cancelUrl: string;
};

const signer = new Stripe(FAKE_STRIPE.SECRET_KEY);

export class FakeStripe {
  url = '';
  readonly calls: StripeCall[] = [];
  readonly customers = new Map<string, { id: string; name: string; metadata: Record<string, string> }>();
  readonly subscriptions = new Map<string, FakeSubscription>();
  readonly sessions = new Map<string, CheckoutSession>();
  /** Meter events accepted, by identifier (a repeat is refused, and counted in `meterRepeats`). */
  readonly meterEvents = new Map<string, { event_name: string; customer: string; value: string; timestamp: number }>();
  meterRepeats = 0;
  /** While set, every call answers 500 (Stripe down). */
  down = false;
  /** While set, a meter event is recorded and never answered (the caller dies waiting); `release` answers them. */
  holdMeterEvents = false;
  private readonly held: Array<() => void> = [];
  /** Where `GET /pay/{id}` delivers checkout.session.completed (readybell's webhook URL). */
  webhookUrl = '';
  /** Rewrites the success URL the browser is sent back to (a test app's PUBLIC_URL is a placeholder). */
  returnTo: (url: string) => string = (url) => url;
  now: () => number = () => Date.now();
  private seq = 0;
  private readonly idempotent = new Map<string, unknown>();
  private server: Server | null = null;

  async start(): Promise<this> {
    this.server = bodyServer((req, text, res) => {
      const [path, query = ''] = (req.url ?? '').split('?');
      const method = req.method ?? '';
      const form = new URLSearchParams(method === 'GET' || method === 'DELETE' ? query : text);
      const idempotencyKey = req.headers['idempotency-key'] as string | undefined;
      this.calls.push({ method, path: path!, form, idempotencyKey });
      const json = (status: number, b: unknown) =>
        res.writeHead(status, { 'content-type': 'application/json', 'request-id': `req_${++this.seq}` }).end(JSON.stringify(b));
      const error = (status: number, message: string, type = 'invalid_request_error', code?: string) =>
        json(status, { error: { type, message, ...(code ? { code } : {}) } });
      if (path!.startsWith('/pay/')) return this.pay(path!.slice('/pay/'.length), res);
      if (req.headers.authorization !== `Bearer ${FAKE_STRIPE.SECRET_KEY}`)
        return error(401, 'Invalid API Key provided', 'invalid_request_error');
      if (this.down) return error(500, 'Stripe is down', 'api_error');
      if (method === 'POST' && path === '/v1/customers') {
        const key = idempotencyKey && `customers:${idempotencyKey}`;
        if (key && this.idempotent.has(key)) return json(200, this.idempotent.get(key));
        const c = {
          id: this.id('cus'),
          object: 'customer',
          name: form.get('name') ?? '',
          metadata: { account_id: form.get('metadata[account_id]') ?? '' },
        };
        this.customers.set(c.id, c);
        if (key) this.idempotent.set(key, c);
        return json(200, c);
      }
      if (method === 'POST' && path === '/v1/checkout/sessions') {
        const customer = form.get('customer') ?? '';
        if (!this.customers.has(customer))
          return error(400, `No such customer: '${customer}'`, 'invalid_request_error', 'resource_missing');
        const s: CheckoutSession = {
          id: this.id('cs_test'),
          customer,
          price: form.get('line_items[0][price]') ?? '',
          accountId: form.get('subscription_data[metadata][account_id]') ?? '',
          trialDays: form.has('subscription_data[trial_period_days]') ? Number(form.get('subscription_data[trial_period_days]')) : null,
          trialEnd: form.has('subscription_data[trial_end]') ? Number(form.get('subscription_data[trial_end]')) : null,
          successUrl: form.get('success_url') ?? '',
          cancelUrl: form.get('cancel_url') ?? '',
        };
        this.sessions.set(s.id, s);
        return json(200, {
          id: s.id,
          object: 'checkout.session',
          mode: 'subscription',
          customer,
          url: `${this.url}/pay/${s.id}`,
          status: 'open',
        });
      }
      if (method === 'POST' && path === '/v1/billing_portal/sessions') {
        const customer = form.get('customer') ?? '';
        if (!this.customers.has(customer))
          return error(400, `No such customer: '${customer}'`, 'invalid_request_error', 'resource_missing');
        return json(200, {
          id: this.id('bps'),
          object: 'billing_portal.session',
          customer,
          url: `${this.url}/portal/${customer}`,
          return_url: form.get('return_url'),
        });
      }
      if (method === 'GET' && path === '/v1/subscriptions') {
        const customer = form.get('customer');
        const data = [...this.subscriptions.values()].filter((s) => s.customer === customer);
        return json(200, { object: 'list', data, has_more: false, url: '/v1/subscriptions' });
      }
      const del = /^\/v1\/subscriptions\/([^/]+)$/.exec(path!);
      if (method === 'DELETE' && del !== null) {
        const s = this.subscriptions.get(del[1]!);
        if (s === undefined) return error(404, `No such subscription: '${del[1]}'`, 'invalid_request_error', 'resource_missing');
        s.status = 'canceled';
        return json(200, s);
      }
      if (method === 'POST' && path === '/v1/billing/meter_events') {
        const identifier = form.get('identifier') ?? this.id('mev');
        if (this.meterEvents.has(identifier)) {
          this.meterRepeats++;
          return error(
            400,
            `An event with identifier ${identifier} already exists.`,
            'invalid_request_error',
            'meter_event_duplicate_identifier',
          );
        }
        const ev = {
          event_name: form.get('event_name') ?? '',
          customer: form.get('payload[stripe_customer_id]') ?? '',
          value: form.get('payload[value]') ?? '',
          timestamp: Number(form.get('timestamp')),
        };
        this.meterEvents.set(identifier, ev);
        if (this.holdMeterEvents) return void this.held.push(() => res.destroy());
        return json(200, { object: 'billing.meter_event', created: Math.floor(this.now() / 1000), identifier, livemode: false, ...ev });
      }
      return error(404, `Unrecognized request URL (${method}: ${path})`);
    });
    await new Promise<void>((resolve) => this.server!.listen(0, '127.0.0.1', resolve));
    const a = this.server.address();
    this.url = `http://127.0.0.1:${typeof a === 'object' && a !== null ? a.port : 0}`;
    return this;
  }

  /** readybell's configuration for this fake. */
  env(extra: Record<string, string> = {}): Record<string, string> {
    return {
      STRIPE_SECRET_KEY: FAKE_STRIPE.SECRET_KEY,
      STRIPE_WEBHOOK_SECRET: FAKE_STRIPE.WEBHOOK_SECRET,
      STRIPE_PRICE_PRO_MONTHLY: FAKE_STRIPE.PRO_MONTHLY,
      STRIPE_PRICE_PRO_YEARLY: FAKE_STRIPE.PRO_YEARLY,
      STRIPE_PRICE_BUSINESS_MONTHLY: FAKE_STRIPE.BUSINESS_MONTHLY,
      STRIPE_API_URL: this.url,
      ...extra,
    };
  }

  private id(prefix: string): string {
    return `${prefix}_${(++this.seq).toString(36).padStart(8, '0')}`;
  }

  /** What Checkout does once the customer has paid: the session's subscription, active or trialing. */
  subscribe(sessionId: string): FakeSubscription {
    const s = this.sessions.get(sessionId);
    if (s === undefined) throw new Error(`no checkout session ${sessionId}`);
    const now = Math.floor(this.now() / 1000);
    const trialEnd = s.trialEnd ?? (s.trialDays === null ? null : now + s.trialDays * 86_400);
    const sub: FakeSubscription = {
      id: this.id('sub'),
      object: 'subscription',
      customer: s.customer,
      status: trialEnd === null ? 'active' : 'trialing',
      created: now,
      cancel_at_period_end: false,
      trial_end: trialEnd,
      metadata: { account_id: s.accountId },
      items: {
        object: 'list',
        data: [
          {
            id: this.id('si'),
            object: 'subscription_item',
            price: { id: s.price, object: 'price' },
            current_period_start: now,
            current_period_end: trialEnd ?? now + 30 * 86_400,
          },
        ],
      },
    };
    this.subscriptions.set(sub.id, sub);
    return sub;
  }

  /** A signed event about `object`, as Stripe POSTs it: the body and its Stripe-Signature header. */
  event(type: string, object: Record<string, unknown>, id = this.id('evt')): { id: string; body: string; signature: string } {
    const body = JSON.stringify({
      id,
      object: 'event',
      api_version: '2026-10-28.endive',
      created: Math.floor(this.now() / 1000),
      type,
      livemode: false,
      data: { object },
    });
    const signature = signer.webhooks.generateTestHeaderString({
      payload: body,
      secret: FAKE_STRIPE.WEBHOOK_SECRET,
      timestamp: Math.floor(Date.now() / 1000),
    });
    return { id, body, signature };
  }

  checkoutCompleted(sessionId: string, sub: FakeSubscription) {
    const s = this.sessions.get(sessionId)!;
    return this.event('checkout.session.completed', {
      id: s.id,
      object: 'checkout.session',
      customer: s.customer,
      subscription: sub.id,
      mode: 'subscription',
      status: 'complete',
    });
  }

  /** The Checkout page a browser reaches: pays, tells readybell, and goes back to the success URL. */
  private async pay(sessionId: string, res: import('node:http').ServerResponse): Promise<void> {
    const s = this.sessions.get(sessionId);
    if (s === undefined) return void res.writeHead(404).end('no such session');
    const sub = this.subscribe(sessionId);
    const e = this.checkoutCompleted(sessionId, sub);
    await fetch(this.webhookUrl, {
      method: 'POST',
      headers: { 'content-type': 'application/json', 'stripe-signature': e.signature },
      body: e.body,
    });
    res.writeHead(303, { location: this.returnTo(s.successUrl) }).end();
  }

  /** Drops the held meter events' connections. */
  release(): void {
    for (const drop of this.held.splice(0)) drop();
  }

  async close(): Promise<void> {
    this.release();
    await new Promise<void>((resolve) => (this.server === null ? resolve() : this.server.close(() => resolve())));
  }
}
