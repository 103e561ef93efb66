// The push and SMS part of the configuration, parsed by loadConfig (src/config.ts) from the same
// environment and validated once at start: a wrong VAPID key or a half-configured SMS provider
// stops the process with a message instead of failing the first ring.
import { createECDH } from 'node:crypto';

import type { PushConfig, SmsConfig, WhatsAppConfig } from '../core/config.ts';

export const TWILIO_API_BASE = 'https://api.twilio.com';

const B64URL = /^[A-Za-z0-9_-]+$/;

/** A P-256 key pair in the base64url form web-push and browsers use; null when it is one. */
export function vapidKeyProblem(publicKey: string, privateKey: string): string | null {
  if (!B64URL.test(publicKey) || !B64URL.test(privateKey)) return 'VAPID keys must be base64url (no padding)';
  const pub = Buffer.from(publicKey, 'base64url');
  const priv = Buffer.from(privateKey, 'base64url');
  if (pub.length !== 65 || pub[0] !== 4) return 'VAPID_PUBLIC_KEY must be an uncompressed P-256 point (65 bytes, base64url)';
  if (priv.length !== 32) return 'VAPID_PRIVATE_KEY must be 32 bytes (base64url)';
  try {
    const ecdh = createECDH('prime256v1');
    ecdh.setPrivateKey(priv);
    if (!ecdh.getPublicKey().equals(pub)) return 'VAPID_PUBLIC_KEY does not belong to VAPID_PRIVATE_KEY';
  } catch {
    return 'VAPID_PRIVATE_KEY is not a valid P-256 private key';
  }
  return null;
}

type Get = (name: string) => string | undefined;

export function loadChannelConfig(
  get: Get,
  problems: string[],
  publicUrl: string,
): { push: PushConfig; sms: SmsConfig | null; whatsapp: WhatsAppConfig | null } {
  const publicKey = get('VAPID_PUBLIC_KEY');
  const privateKey = get('VAPID_PRIVATE_KEY');
  let vapid: PushConfig['vapid'] = null;
  if ((publicKey === undefined) !== (privateKey === undefined)) {
    problems.push('VAPID_PUBLIC_KEY and VAPID_PRIVATE_KEY must be set together (or neither: keys are then generated once and stored)');
  } else if (publicKey !== undefined && privateKey !== undefined) {
    const problem = vapidKeyProblem(publicKey, privateKey);
    if (problem !== null) problems.push(problem);
    else vapid = { publicKey, privateKey };
  }

  // Push services use the subject to reach the operator; an https PUBLIC_URL is a fair default.
  const subject = get('VAPID_SUBJECT') ?? (publicUrl.startsWith('https://') ? publicUrl : 'mailto:operator@readybell.invalid');
  if (!/^mailto:[^@\s]+@[^@\s]+$/.test(subject) && !/^https:\/\/[^\s/]+/.test(subject)) {
    problems.push(`VAPID_SUBJECT must be a mailto: address or an https: URL (got "${subject}")`);
  }

  const allowRaw = get('PUSH_ALLOW_INSECURE_ENDPOINTS') ?? 'false';
  if (!/^(true|false|1|0|yes|no|on|off)$/i.test(allowRaw)) problems.push('PUSH_ALLOW_INSECURE_ENDPOINTS must be true or false');
  const ttlRaw = get('PUSH_TTL_SECONDS') ?? '900';
  const ttlSeconds = Number(ttlRaw);
  if (!Number.isInteger(ttlSeconds) || ttlSeconds < 0 || ttlSeconds > 86_400)
    problems.push(`PUSH_TTL_SECONDS must be a whole number from 0 to 86400 (got "${ttlRaw}")`);

  const push: PushConfig = {
    vapid,
    subject,
    allowInsecureEndpoints: /^(true|1|yes|on)$/i.test(allowRaw),
    ttlSeconds: Number.isInteger(ttlSeconds) ? ttlSeconds : 900,
  };

  const sid = get('SMS_ACCOUNT_SID');
  const token = get('SMS_AUTH_TOKEN');
  const from = get('SMS_FROM');
  const providerUrl = (get('SMS_PROVIDER_URL') ?? TWILIO_API_BASE).replace(/\/+$/, '');
  let sms: SmsConfig | null = null;
  const given = [sid, token, from].filter((v) => v !== undefined).length;
  const urlProblem = providerUrlProblem(providerUrl);
  if (given !== 0 && given !== 3) {
    problems.push('SMS_ACCOUNT_SID, SMS_AUTH_TOKEN and SMS_FROM must be set together (or none: live SMS is then off)');
  } else if (given === 3) {
    if (urlProblem !== null) problems.push(urlProblem);
    else sms = { providerUrl, accountSid: sid!, authToken: token!, from: from! };
  }
  return { push, sms, whatsapp: loadWhatsAppConfig(get, problems, providerUrl, urlProblem, sms === null && given === 3) };
}

function providerUrlProblem(providerUrl: string): string | null {
  try {
    const u = new URL(providerUrl);
    // The auth token travels in every request: plain http only to a provider on this machine.
    const loopback = u.hostname === '127.0.0.1' || u.hostname === 'localhost' || u.hostname === '[::1]';
    if (u.protocol !== 'https:' && !(u.protocol === 'http:' && loopback)) throw new Error('scheme');
    return null;
  } catch {
    return `SMS_PROVIDER_URL must be an https URL (http only on loopback) (got "${providerUrl}")`;
  }
}

/** Twilio's Content SID of an approved template: HX and 32 hex digits. */
const CONTENT_SID = /^HX[0-9a-fA-F]{32}$/;
const E164 = /^\+[1-9]\d{6,14}$/;

/**
 * WhatsApp goes through the SMS provider's account (SMS_ACCOUNT_SID, SMS_AUTH_TOKEN,
 * SMS_PROVIDER_URL), from its own sender, and opens a conversation only with an approved template
 * (decision 0091). Set WHATSAPP_FROM and everything else it needs must be there too.
 */
function loadWhatsAppConfig(
  get: Get,
  problems: string[],
  providerUrl: string,
  urlProblem: string | null,
  urlReported: boolean,
): WhatsAppConfig | null {
  const from = get('WHATSAPP_FROM');
  const template = get('WHATSAPP_READY_TEMPLATE');
  if (from === undefined) {
    if (template !== undefined)
      problems.push('WHATSAPP_READY_TEMPLATE is set without WHATSAPP_FROM: set both (or neither: WhatsApp is then off)');
    return null;
  }
  const sid = get('SMS_ACCOUNT_SID');
  const token = get('SMS_AUTH_TOKEN');
  const number = from.replace(/^whatsapp:/, '');
  const before = problems.length;
  if (sid === undefined || token === undefined)
    problems.push("WHATSAPP_FROM needs SMS_ACCOUNT_SID and SMS_AUTH_TOKEN: WhatsApp is sent through the SMS provider's account");
  if (template === undefined)
    problems.push("WHATSAPP_FROM needs WHATSAPP_READY_TEMPLATE: the provider's Content SID (HX…) of the approved ready template");
  else if (!CONTENT_SID.test(template))
    problems.push(`WHATSAPP_READY_TEMPLATE must be a Content SID (HX and 32 hex digits) (got "${template}")`);
  if (!E164.test(number)) problems.push(`WHATSAPP_FROM must be a number in E.164 form, optionally after whatsapp: (got "${from}")`);
  if (urlProblem !== null && !urlReported) problems.push(urlProblem);
  if (problems.length !== before || urlProblem !== null) return null;
  return { providerUrl, accountSid: sid!, authToken: token!, from: `whatsapp:${number}`, readyTemplate: template! };
}
