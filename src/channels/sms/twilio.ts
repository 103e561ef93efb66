// Twilio-compatible adapter: POST {base}/2010-04-01/Accounts/{sid}/Messages.json, form-encoded
// To/From/Body, HTTP basic auth with the account SID and auth token; 201 Created = accepted.
import type { SmsConfig } from '../channel-config.ts';
import type { SmsMessage, SmsProvider, SmsSendResult } from './provider.ts';

export class TwilioSmsProvider implements SmsProvider {
  private readonly config: SmsConfig;
  private readonly timeoutMs: number;

  constructor(config: SmsConfig, timeoutMs = 10_000) {
    this.config = config;
    this.timeoutMs = timeoutMs;
  }

  async send(message: SmsMessage): Promise<SmsSendResult> {
    const { providerUrl, accountSid, authToken, from } = this.config;
    const url = `${providerUrl}/2010-04-01/Accounts/${encodeURIComponent(accountSid)}/Messages.json`;
    const res = await fetch(url, {
      method: 'POST',
      headers: {
        authorization: `Basic ${Buffer.from(`${accountSid}:${authToken}`).toString('base64')}`,
        'content-type': 'application/x-www-form-urlencoded',
        accept: 'application/json',
      },
      body: new URLSearchParams({ To: message.to, From: from, Body: message.body }).toString(),
      redirect: 'manual',
      // Not the ring deadline: a message the provider may have accepted must not be abandoned.
      signal: AbortSignal.timeout(this.timeoutMs),
    });
    const text = await res.text().catch(() => '');
    if (res.status === 201) return { accepted: true, status: 201, detail: 'accepted' };
    // Twilio's error body carries a numeric code and a message that may repeat the phone number.
    let code = '';
    try {
      const parsed = JSON.parse(text) as { code?: unknown };
      if (typeof parsed.code === 'number') code = ` code ${parsed.code}`;
    } catch {
      // not JSON: the status alone says enough
    }
    return { accepted: false, status: res.status, detail: `rejected (${res.status}${code})` };
  }
}
