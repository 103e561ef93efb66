// A local fake of a Twilio-compatible SMS API: POST /2010-04-01/Accounts/{sid}/Messages.json,
// form-encoded To/From/Body, HTTP basic auth; answers 201 with a message resource. It records
// every request so a test can assert what was (or was never) sent.
import { createServer, type Server } from 'node:http';

export type SentSms = { to: string; from: string; body: string };
export type SmsReply = number | 'hang';

export class FakeSmsProvider {
  static readonly SID = 'ACtest0000000000000000000000000000';
  static readonly TOKEN = 'fake-auth-token';
  static readonly FROM = '+15005550006';
  url = '';
  readonly messages: SentSms[] = [];
  /** Requests of any kind, accepted or not. */
  requests = 0;
  reply: SmsReply = 201;
  private readonly hanging: Array<() => void> = [];
  private arrivals: Array<() => void> = [];
  private server: Server | null = null;

  async start(): Promise<this> {
    this.server = createServer((req, res) => {
      const chunks: Buffer[] = [];
      req.on('data', (c: Buffer) => chunks.push(c));
      req.on('end', () => {
        this.requests++;
        for (const wake of this.arrivals.splice(0)) wake();
        const expectedAuth = `Basic ${Buffer.from(`${FakeSmsProvider.SID}:${FakeSmsProvider.TOKEN}`).toString('base64')}`;
        const json = (status: number, body: unknown) =>
          res.writeHead(status, { 'content-type': 'application/json' }).end(JSON.stringify(body));
        if (req.method !== 'POST' || req.url !== `/2010-04-01/Accounts/${FakeSmsProvider.SID}/Messages.json`)
          return json(404, { code: 20404, message: 'not found' });
        if (req.headers.authorization !== expectedAuth) return json(401, { code: 20003, message: 'Authenticate' });
        if (!String(req.headers['content-type']).startsWith('application/x-www-form-urlencoded'))
          return json(400, { code: 20001, message: 'form expected' });
        const form = new URLSearchParams(Buffer.concat(chunks).toString());
        const msg = { to: form.get('To') ?? '', from: form.get('From') ?? '', body: form.get('Body') ?? '' };
        const accept = () => {
          this.messages.push(msg);
          json(201, { sid: `SM${this.messages.length}`, status: 'queued', to: msg.to, from: msg.from, body: msg.body });
        };
        if (this.reply === 'hang') this.hanging.push(accept);
        else if (this.reply === 201) accept();
        else json(this.reply, { code: 30000 + this.reply, message: `refused for ${msg.to}` });
      });
    });
    await new Promise<void>((resolve) => this.server!.listen(0, '127.0.0.1', resolve));
    const addr = this.server.address();
    this.url = typeof addr === 'object' && addr !== null ? `http://127.0.0.1:${addr.port}` : '';
    return this;
  }

  /** The environment that points readybell at this fake. */
  env(): Record<string, string> {
    return {
      SMS_PROVIDER_URL: this.url,
      SMS_ACCOUNT_SID: FakeSmsProvider.SID,
      SMS_AUTH_TOKEN: FakeSmsProvider.TOKEN,
      SMS_FROM: FakeSmsProvider.FROM,
    };
  }

  /** Resolves once `n` requests have arrived in all (answered or still held). */
  async waitForRequests(n: number): Promise<void> {
    while (this.requests < n) await new Promise<void>((resolve) => this.arrivals.push(resolve));
  }

  release(): void {
    for (const go of this.hanging.splice(0)) go();
  }

  async close(): Promise<void> {
    this.release();
    await new Promise<void>((resolve) => this.server?.close(() => resolve()) ?? resolve());
  }
}
