// A local fake of a Twilio-compatible SMS API: POST /2010-04-01/Accounts/{sid}/Messages.json,
// form-encoded To/From/Body/StatusCallback, HTTP basic auth; answers 201 with a message resource.
// It records every request so a test can assert what was (or was never) sent. Like the provider,
// it also calls readybell back: a customer's text (the inbound-message webhook) and a message's
// delivery receipts (its StatusCallback), signed with X-Twilio-Signature by the `twilio`
// package's own helper, so readybell's check is held against Twilio's implementation.
// WhatsApp goes through the same API (`whatsapp:` addresses, an approved template's ContentSid and
// ContentVariables instead of a Body): the fake records those, and posts WhatsApp's inbound
// messages and receipts as Twilio does, from and to `whatsapp:` addresses.
import type { Server } from 'node:http';
import { bodyServer } from './body-server.ts';
import { getExpectedTwilioSignature } from 'twilio/lib/webhooks/webhooks.js';

export type SentSms = {
  to: string;
  from: string;
  body: string;
  sid: string;
  statusCallback: string | null;
  /** A template's Content SID and its variables (parsed), when the message is one. */
  contentSid?: string;
  contentVariables?: Record<string, string>;
};
export type Callback = { status: number; type: string | null; text: string };
export type SmsReply = number | 'hang';

export class FakeSmsProvider {
  static readonly SID = 'ACtest0000000000000000000000000000';
  static readonly TOKEN = 'fake-auth-token';
  static readonly FROM = '+15005550006';
  static readonly WHATSAPP_FROM = 'whatsapp:+14155238886';
  static readonly WHATSAPP_TEMPLATE = `HX${'b'.repeat(32)}`;
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
        ...(form.has('ContentSid')
          ? { contentSid: form.get('ContentSid')!, contentVariables: JSON.parse(form.get('ContentVariables') ?? '{}') }
          : {}),
      };
      // Like Twilio: a message is a Body or a template, and WhatsApp is only from a WhatsApp sender.
      if (form.has('Body') === form.has('ContentSid'))
        return json(400, { code: 21619, message: 'A text message body or media urls must be specified' });
      if (msg.to.startsWith('whatsapp:') !== msg.from.startsWith('whatsapp:'))
        return json(400, { code: 63007, message: 'Twilio could not find a Channel with the specified From address' });
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

  /** The environment that adds WhatsApp through this fake (SMS_* from env()). */
  whatsappEnv(): Record<string, string> {
    return { WHATSAPP_FROM: FakeSmsProvider.WHATSAPP_FROM, WHATSAPP_READY_TEMPLATE: FakeSmsProvider.WHATSAPP_TEMPLATE };
  }

  /** A customer's WhatsApp message from `from` (+E.164), as Twilio's inbound webhook posts it. */
  whatsappInbound(
    serverUrl: string,
    publicUrl: string,
    from: string,
    body: string,
    opts: { signature?: string | null; messageSid?: string } = {},
  ): Promise<Callback> {
    const sid = opts.messageSid ?? `SM${String(++this.inboundSeq).padStart(32, 'e')}`;
    return this.callBack(
      serverUrl,
      `${publicUrl}/sms/inbound`,
      {
        SmsMessageSid: sid,
        NumMedia: '0',
        ProfileName: 'Sam',
        MessageType: 'text',
        SmsSid: sid,
        WaId: from.slice(1),
        SmsStatus: 'received',
        Body: body,
        To: FakeSmsProvider.WHATSAPP_FROM,
        NumSegments: '1',
        ReferralNumMedia: '0',
        MessageSid: sid,
        AccountSid: FakeSmsProvider.SID,
        From: `whatsapp:${from}`,
        ApiVersion: '2010-04-01',
      },
      opts,
    );
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
        ...(message.to.startsWith('whatsapp:')
          ? { ChannelPrefix: 'whatsapp', ChannelToAddress: message.to.slice('whatsapp:'.length) }
          : {}),
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
