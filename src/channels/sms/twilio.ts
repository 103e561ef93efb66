// Twilio-compatible adapter: POST {base}/2010-04-01/Accounts/{sid}/Messages.json, form-encoded
// To/From/Body (and StatusCallback, where the provider reports delivery), HTTP basic auth with the
// account SID and auth token; 201 Created = accepted. The same API sends WhatsApp (decision 0091):
// `whatsapp:` addresses, and an approved template (ContentSid, ContentVariables) instead of a Body.
import type { SmsConfig } from '../../core/config.ts';
import type { SmsMessage, SmsProvider, SmsSendResult } from './provider.ts';

/** A message with, instead of its body, an approved template and its variables ({"1": …}). */
export type TwilioMessage = SmsMessage & { template?: { sid: string; variables: Record<string, string> } };

export class TwilioSmsProvider implements SmsProvider {
  private readonly config: SmsConfig;
  private readonly timeoutMs: number;

  constructor(config: SmsConfig, timeoutMs = 10_000) {
    this.config = config;
    this.timeoutMs = timeoutMs;
  }

  async send(message: TwilioMessage): Promise<SmsSendResult> {
    const { providerUrl, accountSid, authToken, from } = this.config;
    const url = `${providerUrl}/2010-04-01/Accounts/${encodeURIComponent(accountSid)}/Messages.json`;
    const res = await fetch(url, {
      method: 'POST',
      headers: {
        authorization: `Basic ${Buffer.from(`${accountSid}:${authToken}`).toString('base64')}`,
        'content-type': 'application/x-www-form-urlencoded',
        accept: 'application/json',
      },
      body: new URLSearchParams({
        To: message.to,
        From: from,
        ...(message.template === undefined
          ? { Body: message.body }
          : { ContentSid: message.template.sid, ContentVariables: JSON.stringify(message.template.variables) }),
        ...(message.statusCallback === undefined ? {} : { StatusCallback: message.statusCallback }),
      }).toString(),
      redirect: 'manual',
      // Not the ring deadline: a message the provider may have accepted must not be abandoned.
      signal: AbortSignal.timeout(this.timeoutMs),
    });
    const text = await res.text().catch(() => '');
    // Twilio's bodies repeat the phone number and the text: only the id and the error code are read.
    let parsed: { sid?: unknown; code?: unknown } = {};
    try {
      const value: unknown = JSON.parse(text);
      if (typeof value === 'object' && value !== null) parsed = value;
    } catch {
      // not JSON: the status alone says enough
    }
    if (res.status === 201) {
      const sid = typeof parsed.sid === 'string' && /^[A-Za-z0-9]{1,64}$/.test(parsed.sid) ? parsed.sid : undefined;
      return { accepted: true, status: 201, detail: 'accepted', ...(sid === undefined ? {} : { sid }) };
    }
    const code = typeof parsed.code === 'number' ? String(parsed.code) : undefined;
    return {
      accepted: false,
      status: res.status,
      detail: `rejected (${res.status}${code === undefined ? '' : ` code ${code}`})`,
      ...(code === undefined ? {} : { errorCode: code }),
    };
  }
}
