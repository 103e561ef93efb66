// The phone number a customer types on the ticket page for SMS fallback (decision 0023): whether
// the page may ask for one, how it is read, and how it is shown back (never in full).
//
// Read with libphonenumber-js and its full ("max") metadata, which knows each country's number
// plan and the type of a number: a national number ("07400 123456") is read in the branch's
// country when it set one (customer_page.phone_country), otherwise the customer must start with
// + and the country code. Only numbers that can take a text are kept: landlines, toll-free,
// premium-rate and shared-cost numbers are refused (texting a premium-rate number costs the shop,
// and is how SMS pumping fraud makes money).
import { isSupportedCountry, parsePhoneNumberFromString, type CountryCode, type NumberType } from 'libphonenumber-js/max';
import type { Plan } from '../core/tenancy.ts';
import type { BranchSettings } from '../core/branch-settings.ts';
import { planHasPaidChannels } from './ring-policy.ts';
import { paidChannelsOn } from './branch-settings.ts';
import type { PaidChannel } from '../core/channel-catalogue.ts';
import { isE164 } from './validation.ts';

export const PHONE_PROBLEMS = ['invalid', 'needs-country-code', 'not-mobile'] as const;
export type PhoneProblem = (typeof PHONE_PROBLEMS)[number];
export const isPhoneProblem = (s: unknown): s is PhoneProblem => (PHONE_PROBLEMS as readonly unknown[]).includes(s);
export type ParsedPhone = { ok: true; e164: string } | { ok: false; problem: PhoneProblem };

/** Longer than any number written with spaces and punctuation: refused before parsing. */
const MAX_INPUT = 40;
const NO_TEXTS: ReadonlySet<NumberType> = new Set<NumberType>([
  'FIXED_LINE',
  'TOLL_FREE',
  'PREMIUM_RATE',
  'SHARED_COST',
  'PAGER',
  'UAN',
  'VOICEMAIL',
]);

/** An ISO 3166-1 alpha-2 code of a country with a telephone numbering plan (upper case). */
export function isPhoneCountry(code: string): boolean {
  return /^[A-Z]{2}$/.test(code) && isSupportedCountry(code);
}

export function parseCustomerPhone(raw: string, country: string | null): ParsedPhone {
  const text = raw.trim();
  if (!/\d/.test(text) || text.length > MAX_INPUT) return { ok: false, problem: 'invalid' };
  const international = text.startsWith('+');
  if (!international && (country === null || !isPhoneCountry(country))) return { ok: false, problem: 'needs-country-code' };
  const number = parsePhoneNumberFromString(text, international ? undefined : (country as CountryCode));
  if (number === undefined || !number.isValid() || !isE164(number.number)) return { ok: false, problem: 'invalid' };
  const type = number.getType();
  if (type !== undefined && NO_TEXTS.has(type)) return { ok: false, problem: 'not-mobile' };
  return { ok: true, e164: number.number };
}

/**
 * The number as it may be shown back: the country code and the last three digits, the rest as
 * dots in the country's grouping ("+44 •••• •••456"), so its owner recognises it and nobody else
 * learns it. The groups are joined by no-break spaces: a number never wraps across lines.
 */
export function maskPhone(e164: string): string {
  const number = parsePhoneNumberFromString(e164);
  const code = number ? `+${number.countryCallingCode}` : e164.slice(0, 2);
  const rest = [...(number ? number.formatInternational().slice(code.length) : ` ${e164.slice(2)}`)];
  let kept = 0;
  for (let i = rest.length - 1; i >= 0; i--) {
    if (!/\d/.test(rest[i]!)) continue;
    if (kept < 3) kept++;
    else rest[i] = '•';
  }
  return (code + rest.join('')).replaceAll(' ', '\u00a0');
}

export type PhoneEntryFacts = {
  settings: BranchSettings;
  plan: Plan;
  livemode: boolean;
  /** Whether the operator configured a paid channel's provider (Config keeps each under the channel's name). */
  configured: (channel: PaidChannel) => boolean;
};

/**
 * Whether the ticket page offers (and accepts) a phone number: the branch asked for it, its plan
 * includes paid channels, and one of the paid channels it turned on (SMS, WhatsApp: any of the
 * catalogue's) can send (test mode simulates; live mode needs that channel's provider). Anything
 * less would collect a number that is never used.
 */
export function phoneEntryOffered(f: PhoneEntryFacts): boolean {
  return (
    f.settings.customer_page.phone_entry &&
    planHasPaidChannels(f.plan) &&
    paidChannelsOn(f.settings).some((channel) => !f.livemode || f.configured(channel))
  );
}
