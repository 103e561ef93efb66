// A branch's settings as every layer reads them (ring reminders, customer page, board voice, SMS).
// Stored as one JSON column; src/domain/branch-settings.ts holds their defaults, merging and checks.
import type { LadderChannel, PaidSwitchSettings } from './channel-catalogue.ts';

export type BranchSettings = {
  expiry_hours: number;
  reminder_delay_seconds: number;
  reminder_count: number;
  /** The reminders' escalation ladder; null: `reminder_count` reminders every `reminder_delay_seconds`, every channel. */
  escalation_ladder: LadderStep[] | null;
  voice: { enabled: boolean; language: string };
  customer_page: {
    language: string;
    messages: { waiting: string | null; ready: string | null; closed: string | null };
    /** The page asks for a phone number for SMS fallback (business plan; decision 0023). */
    phone_entry: boolean;
    /** ISO 3166-1 alpha-2: numbers typed without + are read in this country; null: + required. */
    phone_country: string | null;
  };
} & PaidSwitchSettings; // each paid channel's switch (`sms_enabled`, …): the catalogue's `branchSwitch`

/** The free channels a ladder step may use to reach the customer's phone (the catalogue's, decision 0074). */
export type { LadderChannel } from './channel-catalogue.ts';

/** One reminder of a branch's escalation ladder (decision 0032; its rules: src/domain/escalation-ladder.ts). */
export type LadderStep = {
  /** Seconds after the ready (each step later than the one before it). */
  after_seconds: number;
  /** The free channels that reach the customer's phone. */
  channels: readonly LadderChannel[];
  /** The paid channels (SMS): not at all, only when no free channel reached the customer, or even if one did. */
  sms: 'never' | 'fallback' | 'always';
  /** The shop's boards call the number out. */
  call_out: boolean;
};
