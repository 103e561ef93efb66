// Branch settings with their defaults. Stored as one JSON column so that adding a setting needs
// no migration; every read goes through withDefaults, so old rows gain new defaults.
import type { BranchSettings } from '../core/branch-settings.ts';
import { PAID_SWITCH_DEFAULTS, PAID_SWITCHES, type PaidChannel } from '../core/channel-catalogue.ts';

export const DEFAULT_SETTINGS: BranchSettings = {
  expiry_hours: 12,
  reminder_delay_seconds: 120,
  reminder_count: 2,
  escalation_ladder: null,
  voice: { enabled: true, language: 'en' },
  customer_page: { language: 'en', messages: { waiting: null, ready: null, closed: null }, phone_entry: false, phone_country: null },
  ...PAID_SWITCH_DEFAULTS,
};

/** The languages of the customer page, the board and what a customer is sent (PRODUCT.md §10). */
export const SUPPORTED_LANGUAGES = ['en', 'fr', 'es', 'de', 'it', 'pt', 'nl', 'ar'] as const;

type DeepPartial<T> = { [K in keyof T]?: T[K] extends object ? DeepPartial<T[K]> : T[K] };
export type BranchSettingsPatch = DeepPartial<BranchSettings>;

function merge<T extends object>(base: T, patch: DeepPartial<T> | undefined): T {
  // deep merge of plain JSON objects; arrays and nulls replace
  if (patch === undefined || patch === null) return base;
  const out: Record<string, unknown> = { ...(base as unknown as Record<string, unknown>) };
  for (const [k, v] of Object.entries(patch)) {
    if (v === undefined) continue;
    const cur = (base as unknown as Record<string, unknown>)[k];
    const bothObjects =
      cur !== null && typeof cur === 'object' && !Array.isArray(cur) && v !== null && typeof v === 'object' && !Array.isArray(v);
    out[k] = bothObjects ? merge(cur as object, v as object) : v;
  }
  return out as T;
}

/**
 * `expiry_hours` counts whole minutes (decision 0051): any number within bounds is accepted and
 * rounded once, at the edge, to the nearest minute, so an expiry is a whole number of
 * milliseconds on both stores (PostgreSQL keeps `expires_at` in a bigint).
 */
export function expiryMinutes(hours: number): number {
  return Math.round(hours * 60);
}

/** `expiry_hours` as stored and shown: the nearest whole minute, in hours. */
export function roundExpiryHours(hours: number): number {
  return expiryMinutes(hours) / 60;
}

/** How long an open ticket lives, in whole milliseconds (settings stored before rounding included). */
export function expiryMs(hours: number): number {
  return expiryMinutes(hours) * 60_000;
}

export function withDefaults(stored: BranchSettingsPatch | undefined): BranchSettings {
  return merge(DEFAULT_SETTINGS, stored);
}

export function applyPatch(current: BranchSettings, patch: BranchSettingsPatch): BranchSettings {
  return merge(current, patch);
}

/** The paid channels the branch turned on, each by its catalogue's `branchSwitch`, in the catalogue's order. */
export function paidChannelsOn(settings: BranchSettings): PaidChannel[] {
  return PAID_SWITCHES.filter((s) => settings[s.setting]).map((s) => s.channel);
}

/** Whether any paid channel is on for the branch: what a customer's phone number is kept and asked for. */
export const anyPaidChannelOn = (settings: BranchSettings): boolean => paidChannelsOn(settings).length > 0;
