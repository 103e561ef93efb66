// A real HTTP receiver on 127.0.0.1, as an integrator would run one: it checks every delivery's
// signatures, both schemes, with the published verifier (`readybell/webhooks`) against each secret
// it knows, and answers what the test tells it to.
import http from 'node:http';
import type { AddressInfo } from 'node:net';
import { verifyStandardWebhook, verifyWebhook, type WebhookEvent } from 'readybell/webhooks';

export type Delivery = {
  headers: http.IncomingHttpHeaders;
  body: string;
  /** null when no known secret verified the signature */
  event: WebhookEvent | null;
  /** which of `secrets` verified Service-Signature */
  verifiedBy: string[];
  /** which of `secrets` verified the Standard Webhooks headers */
  standardVerifiedBy: string[];
  t: number;
  v1: string[];
};

export type Answer = { status: number; headers?: Record<string, string>; body?: string } | 'hold';

export class WebhookReceiver {
  readonly deliveries: Delivery[] = [];
  /** Secrets a delivery is checked against; a test sets them from the endpoint's answers. */
  secrets: string[] = [];
  /** Decides each answer; the default accepts. `n` counts from 1. */
  answer: (d: Delivery, n: number) => Answer = () => ({ status: 200, body: 'ok' });
  nowSeconds: () => number = () => Math.floor(Date.now() / 1000);
  private readonly server: http.Server;
  private readonly held: http.ServerResponse[] = [];
  private waiters: Array<() => void> = [];
  url = '';

  constructor() {
    this.server = http.createServer((req, res) => {
      const chunks: Buffer[] = [];
      req.on('data', (c: Buffer) => chunks.push(c));
      req.on('end', () => this.handle(req, Buffer.concat(chunks).toString('utf8'), res));
    });
  }

  async start(): Promise<this> {
    await new Promise<void>((resolve) => this.server.listen(0, '127.0.0.1', resolve));
    this.url = `http://127.0.0.1:${(this.server.address() as AddressInfo).port}`;
    return this;
  }

  get port(): number {
    return (this.server.address() as AddressInfo).port;
  }

  private handle(req: http.IncomingMessage, body: string, res: http.ServerResponse): void {
    const header = req.headers['service-signature'];
    const parts = String(header ?? '').split(',');
    const t = Number(parts.find((p) => p.startsWith('t='))?.slice(2));
    const v1 = parts.filter((p) => p.startsWith('v1=')).map((p) => p.slice(3));
    const verifiedBy: string[] = [];
    const standardVerifiedBy: string[] = [];
    let event: WebhookEvent | null = null;
    for (const secret of this.secrets) {
      try {
        event = verifyWebhook(body, header, secret, { nowSeconds: this.nowSeconds() });
        verifiedBy.push(secret);
      } catch {
        // not this secret
      }
      try {
        verifyStandardWebhook(body, req.headers, secret, { nowSeconds: this.nowSeconds() });
        standardVerifiedBy.push(secret);
      } catch {
        // not this secret
      }
    }
    const d: Delivery = { headers: req.headers, body, event, verifiedBy, standardVerifiedBy, t, v1 };
    this.deliveries.push(d);
    const answer: Answer = event === null ? { status: 400, body: 'signature check failed' } : this.answer(d, this.deliveries.length);
    for (const w of this.waiters.splice(0)) w();
    if (answer === 'hold') {
      this.held.push(res);
      return;
    }
    res.writeHead(answer.status, { 'content-type': 'text/plain', ...answer.headers });
    res.end(answer.body ?? '');
  }

  /** Resolves once `n` deliveries have arrived (event-driven; fails after `ms` as a guard). */
  async waitFor(n: number, ms = 10_000): Promise<void> {
    const deadline = Date.now() + ms;
    while (this.deliveries.length < n) {
      const left = deadline - Date.now();
      if (left <= 0) throw new Error(`expected ${n} deliveries, got ${this.deliveries.length}`);
      await new Promise<void>((resolve) => {
        const timer = setTimeout(resolve, left);
        this.waiters.push(() => {
          clearTimeout(timer);
          resolve();
        });
      });
    }
  }

  async close(): Promise<void> {
    for (const res of this.held.splice(0)) res.destroy();
    this.server.closeAllConnections();
    await new Promise<void>((resolve) => this.server.close(() => resolve()));
  }
}
