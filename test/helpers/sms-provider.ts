// A local fake of a Twilio-compatible SMS API: POST /2010-04-01/Accounts/{sid}/Messages.json,
// form-encoded To/From/Body/StatusCallback, HTTP basic auth; answers 201 with a message resource.
// It records every request so a test can assert what was (or was never) sent. Like the provider,
// it also calls readybell back: a customer's text (the inbound-message webhook) and a message's
// delivery receipts (its StatusCallback), signed with X-Twilio-Signature by the `twilio`
// package's own helper, so readybell's check is held against Twilio's implementation.
import type { Server } from 'node:http';
import { bodyServer } from './body-server.ts';
import { getExpectedTwilioSignature } from 'twilio/lib/webhooks/webhooks.js';

export type SentSms = { to: string; from: string; body: string; sid: string; statusCallback: string | null };
export type Callback = { status: number; type: string | null; text: string };
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
  private inboundSeq = 0;
  private readonly hanging: Array<() => void> = [];
  private arrivals: Array<() => void> = [];
  private server: Server | null = null;

  async start(): Promise<this> {
    this.server = bodyServer((req, text, res) => {
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
      const form = new URLSearchParams(text);
      const msg: SentSms = {
        to: form.get('To') ?? '',
        from: form.get('From') ?? '',
        body: form.get('Body') ?? '',
        sid: `SM${String(this.requests).padStart(32, '0')}`,
        statusCallback: form.get('StatusCallback'),
      };
      const accept = () => {
        this.messages.push(msg);
        json(201, { sid: msg.sid, status: 'queued', to: msg.to, from: msg.from, body: msg.body });
      };
      if (this.reply === 'hang') this.hanging.push(accept);
      else if (this.reply === 201) accept();
      else json(this.reply, { code: 30000 + this.reply, message: `refused for ${msg.to}` });
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

  /**
   * POSTs a signed form to readybell at `publicUrl` (the URL the provider was given, which the
   * signature covers), reached at `serverUrl`. `signature`: override the header (null: none).
   */
  async callBack(
    serverUrl: string,
    publicUrl: string,
    params: Record<string, string>,
    opts: { signature?: string | null; token?: string } = {},
  ): Promise<Callback> {
    const url = new URL(publicUrl);
    const signature =
      opts.signature === undefined ? getExpectedTwilioSignature(opts.token ?? FakeSmsProvider.TOKEN, publicUrl, params) : opts.signature;
    const res = await fetch(`${serverUrl}${url.pathname}${url.search}`, {
      method: 'POST',
      headers: { 'content-type': 'application/x-www-form-urlencoded', ...(signature === null ? {} : { 'x-twilio-signature': signature }) },
      body: new URLSearchParams(params).toString(),
    });
    return { status: res.status, type: res.headers.get('content-type'), text: await res.text() };
  }

  /** A customer's text, from `from` to the service's number, as Twilio's inbound-message webhook posts it. */
  inbound(
    serverUrl: string,
    publicUrl: string,
    from: string,
    body: string,
    opts: { signature?: string | null; token?: string; messageSid?: string } = {},
  ): Promise<Callback> {
    const sid = opts.messageSid ?? `SM${String(++this.inboundSeq).padStart(32, 'f')}`;
    return this.callBack(
      serverUrl,
      `${publicUrl}/sms/inbound`,
      {
        ToCountry: 'US',
        SmsMessageSid: sid,
        NumMedia: '0',
        SmsSid: sid,
        SmsStatus: 'received',
        Body: body,
        To: FakeSmsProvider.FROM,
        NumSegments: '1',
        MessageSid: sid,
        AccountSid: FakeSmsProvider.SID,
        From: from,
        ApiVersion: '2010-04-01',
      },
      opts,
    );
  }

  /** A delivery receipt for a sent message, posted to the StatusCallback it was given. */
  receipt(
    serverUrl: string,
    message: SentSms,
    status: string,
    opts: { errorCode?: string; signature?: string | null } = {},
  ): Promise<Callback> {
    if (message.statusCallback === null) throw new Error('the message was sent without a StatusCallback');
    return this.callBack(
      serverUrl,
      message.statusCallback,
      {
        MessageSid: message.sid,
        SmsSid: message.sid,
        MessageStatus: status,
        SmsStatus: status,
        AccountSid: FakeSmsProvider.SID,
        To: message.to,
        From: message.from,
        ApiVersion: '2010-04-01',
        ...(opts.errorCode === undefined ? {} : { ErrorCode: opts.errorCode }),
      },
      opts,
    );
  }

  async close(): Promise<void> {
    this.release();
    await new Promise<void>((resolve) => this.server?.close(() => resolve()) ?? resolve());
  }
}
