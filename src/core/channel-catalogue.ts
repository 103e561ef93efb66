// The catalogue of channels (decision 0074): each way a ring reaches someone is declared here once,
// as data, and every list of channels derives from it: the ring types (core/ring.ts), the ladder
// step's channels (core/branch-settings.ts), the API's enums (contract/), the ring policy's
// fan-out order and strength (domain/ring-policy.ts), the ladder (domain/escalation-ladder.ts), the
// insights' per-channel counts (domain/insight-figures.ts, stored as rows keyed by channel), and the
// staff page's ladder editor and reach chart (web/staff imports this file). A channel's code (its
// ringer) is a module of src/channels/; this file holds only what the other layers need to know of
// it. Core: imports nothing. test/unit/channel-lists.test.ts fails on a list of channel names kept
// anywhere else.

/** What a declaration says about one channel. */
export type ChannelDeclaration = {
  /**
   * `free`: tried together in a ring's first stage. `paid`: costs per message; only on a plan with
   * paid channels and a branch that turned it on (`branchSwitch`), with a phone number, sent as
   * the ladder step's paid setting says (the fallback: only when no free channel reached the
   * customer), simulated in test mode.
   */
  kind: 'free' | 'paid';
  /** Whom it reaches: the customer's phone, or the shop (the boards, which call the number out). */
  reaches: 'customer' | 'shop';
  /**
   * Rank in a ring's `channel_used` (1 strongest): the strongest channel known to have reached the
   * customer names the ring's result. null: never a ring's result (the shop's boards).
   */
  strength: number | null;
  /**
   * How delivery is known. `in-line`: the attempt itself says (a push service or SMS provider
   * accepted it, a page or board acknowledged it), so a paid fallback waits for its answer;
   * `later`: confirmed after the attempt (a device fetching its Wallet pass), and the ring's job asks again.
   */
  confirmed: 'in-line' | 'later';
  /**
   * The staff ladder editor: `step` a box per step (label `ladder.<name>`, with the hint
   * `ladder.<name>Hint` when `hint`); `call-out` the step's call-out box; `paid` the step's
   * paid setting.
   */
  ladder: { editor: 'step' | 'call-out' | 'paid'; hint?: true };
  /**
   * The staff insights' reach chart (label `insights.channel.<name>`): `always` shown, `when-used`
   * only in a period it reached someone; its bar's colour. null: not a ring's result.
   */
  insights: { chart: 'always' | 'when-used'; colour: ChartColour } | null;
  /**
   * The customer turns it on from their page (a ticket's `customer.notifications`): a push
   * subscription, or a phone number for the paid channels (named by the first of them).
   */
  subscribes: boolean;
  /** The customer can answer a ring through it ("On my way", a snooze; an event's `via`): their page's buttons, a text back. */
  answers: boolean;
  /** The configuration it needs (names in the README's table); [] when it needs none. */
  config: readonly string[];
  /**
   * Paid channels: the branch setting that turns it on, a boolean of BranchSettings and of the
   * API's Branch (GET and PATCH /v1/branch, the staff settings' checkbox labelled
   * `settings.<name>`), with its default and the API's description of it. Every layer derives
   * the switch from here: a new paid channel's switch needs no edit elsewhere.
   */
  branchSwitch?: { setting: string; default: boolean; description: string };
};

/** A colour of the staff page's charts (web/staff/src/insights/charts.tsx). */
export type ChartColour = 'blue' | 'orange' | 'green' | 'purple' | 'teal' | 'red' | 'grey';

/**
 * Every channel. A ring tries the free ones together in stage 1 and lists them in this order in its
 * `attempts`, then the paid ones in this order; the API's enums list them in this order.
 */
export const CHANNEL_CATALOGUE = {
  push: {
    kind: 'free',
    reaches: 'customer',
    strength: 1,
    confirmed: 'in-line',
    ladder: { editor: 'step' },
    insights: { chart: 'always', colour: 'blue' },
    subscribes: true,
    answers: false,
    config: ['VAPID_PUBLIC_KEY', 'VAPID_PRIVATE_KEY', 'VAPID_SUBJECT', 'PUSH_TTL_SECONDS'],
  },
  wallet: {
    kind: 'free',
    reaches: 'customer',
    strength: 2,
    confirmed: 'later',
    ladder: { editor: 'step', hint: true },
    insights: { chart: 'when-used', colour: 'orange' },
    subscribes: false,
    answers: false,
    config: [
      'APPLE_PASS_TYPE_ID',
      'APPLE_TEAM_ID',
      'APPLE_PASS_CERT',
      'APPLE_PASS_KEY',
      'APPLE_WWDR_CERT',
      'GOOGLE_WALLET_ISSUER_ID',
      'GOOGLE_WALLET_SERVICE_ACCOUNT_FILE',
    ],
  },
  page: {
    kind: 'free',
    reaches: 'customer',
    strength: 3,
    confirmed: 'in-line',
    ladder: { editor: 'step' },
    insights: { chart: 'always', colour: 'green' },
    subscribes: false,
    answers: true,
    config: [],
  },
  sms: {
    kind: 'paid',
    reaches: 'customer',
    strength: 4,
    confirmed: 'in-line',
    ladder: { editor: 'paid' },
    insights: { chart: 'always', colour: 'purple' },
    subscribes: true,
    answers: true,
    config: ['SMS_ACCOUNT_SID', 'SMS_AUTH_TOKEN', 'SMS_FROM', 'SMS_PROVIDER_URL'],
    branchSwitch: {
      setting: 'sms_enabled',
      default: true,
      description: 'Ready messages by SMS when no free channel reached the customer (business plan); on by default',
    },
  },
  // Twilio's WhatsApp sender (decision 0091): the SMS provider's account and API, its own sender
  // and approved ready template; off until a branch turns it on.
  whatsapp: {
    kind: 'paid',
    reaches: 'customer',
    strength: 5,
    confirmed: 'in-line',
    ladder: { editor: 'paid' },
    insights: { chart: 'when-used', colour: 'teal' },
    subscribes: false,
    answers: true,
    config: ['SMS_ACCOUNT_SID', 'SMS_AUTH_TOKEN', 'SMS_PROVIDER_URL', 'WHATSAPP_FROM', 'WHATSAPP_READY_TEMPLATE'],
    // Off by default, unlike SMS: a service that configures WhatsApp changes nothing until a branch asks.
    branchSwitch: {
      setting: 'whatsapp_enabled',
      default: false,
      description: 'Ready messages through WhatsApp (business plan); off by default',
    },
  },
  display: {
    kind: 'free',
    reaches: 'shop',
    strength: null,
    confirmed: 'in-line',
    ladder: { editor: 'call-out' },
    insights: null,
    subscribes: false,
    answers: false,
    config: [],
  },
} as const satisfies Record<string, ChannelDeclaration>;

type Catalogue = typeof CHANNEL_CATALOGUE;
export type ChannelName = keyof Catalogue;
type Where<P extends keyof Catalogue[ChannelName], V> = { [N in ChannelName]: Catalogue[N][P] extends V ? N : never }[ChannelName];

/** Tried together in a ring's first stage. */
export type FreeChannel = Where<'kind', 'free'>;
/** Paid per message: stage 2, or alongside stage 1 when a ring chose them `always`. */
export type PaidChannel = Where<'kind', 'paid'>;
/** Reach the customer, so can be a ring's `channel_used`. */
export type CustomerChannel = Where<'reaches', 'customer'>;
/** What a customer turns on from their page. */
export type SubscribeChannel = Where<'subscribes', true>;
/** How a customer may answer a ring. */
export type AnswerChannel = Where<'answers', true>;
/** A box of their own on a ladder step. */
export type LadderChannel = Where<'ladder', { editor: 'step' }>;
/** What a ring's result says when no channel is known to have reached the customer. */
export type RingOutcomeName = 'none' | 'unknown';
/** The branch setting that turns a paid channel on (`sms_enabled`, …). */
export type PaidSwitchName = { [N in PaidChannel]: Catalogue[N] extends { branchSwitch: { setting: infer S } } ? S : never }[PaidChannel];
/** The paid channels' switches, as BranchSettings and the API's Branch hold them. */
export type PaidSwitchSettings = { [S in PaidSwitchName]: boolean };
/** A ring's `channel_used`. `unknown`: nothing is known to have reached the customer, and a send that may have did not record its outcome. */
export type ChannelUsed = CustomerChannel | RingOutcomeName;

const names = Object.keys(CHANNEL_CATALOGUE) as ChannelName[];
const declared = (n: ChannelName): ChannelDeclaration => CHANNEL_CATALOGUE[n];

/** Every channel, in the catalogue's order. */
export const CHANNEL_NAMES: readonly ChannelName[] = names;
export const FREE_CHANNELS = names.filter((n) => declared(n).kind === 'free') as readonly FreeChannel[];
export const PAID_CHANNELS = names.filter((n) => declared(n).kind === 'paid') as readonly PaidChannel[];
/** The free channels that reach the customer's phone (not the shop's boards). */
export const FREE_CUSTOMER_CHANNELS = FREE_CHANNELS.filter((n) => declared(n).reaches === 'customer');
export const LADDER_CHANNELS = names.filter((n) => declared(n).ladder.editor === 'step') as readonly LadderChannel[];
export const SUBSCRIBE_CHANNELS = names.filter((n) => declared(n).subscribes) as readonly SubscribeChannel[];
export const ANSWER_CHANNELS = names.filter((n) => declared(n).answers) as readonly AnswerChannel[];
/** A paid channel's branch switch: its setting's name, default and description. */
export type PaidSwitch = { channel: PaidChannel; setting: PaidSwitchName; default: boolean; description: string };
/** Every paid channel's branch switch, in the catalogue's order. */
export const PAID_SWITCHES: readonly PaidSwitch[] = PAID_CHANNELS.map((channel) => {
  const s = declared(channel).branchSwitch!;
  return { channel, setting: s.setting as PaidSwitchName, default: s.default, description: s.description };
});
/** The switches' settings, in the catalogue's order. */
export const PAID_SWITCH_NAMES: readonly PaidSwitchName[] = PAID_SWITCHES.map((s) => s.setting);
/** The switches as a new branch has them. */
export const PAID_SWITCH_DEFAULTS = Object.fromEntries(PAID_SWITCHES.map((s) => [s.setting, s.default])) as PaidSwitchSettings;
/** The paid channel switch `setting` of `o` (a branch's settings, the API's Branch, a draft of edits), each by its name. */
export function pickPaidSwitches<O extends Partial<PaidSwitchSettings>>(o: O): { [S in PaidSwitchName]: O[S] } {
  return Object.fromEntries(PAID_SWITCH_NAMES.map((s) => [s, o[s]])) as { [S in PaidSwitchName]: O[S] };
}

/** The channels a ring's result may name, strongest first. */
export const STRENGTH = names
  .filter((n) => declared(n).strength !== null)
  .sort((a, b) => declared(a).strength! - declared(b).strength!) as readonly CustomerChannel[];
/** Every value of a ring's `channel_used`: the channels by strength, then the two outcomes. */
export const CHANNELS_USED: readonly ChannelUsed[] = [...STRENGTH, 'none', 'unknown'];

/** How the insights' chart shows the two outcomes that are no channel. */
export const OUTCOME_CHART: Record<RingOutcomeName, NonNullable<ChannelDeclaration['insights']>> = {
  none: { chart: 'always', colour: 'red' },
  unknown: { chart: 'when-used', colour: 'grey' },
};

/** The insights' chart of a ring result: its channel's declaration, or the outcome's. */
export function chartOf(c: ChannelUsed): NonNullable<ChannelDeclaration['insights']> {
  return c === 'none' || c === 'unknown' ? OUTCOME_CHART[c] : declared(c).insights!;
}

export const isChannelName = (s: string): s is ChannelName => Object.hasOwn(CHANNEL_CATALOGUE, s);
export const channelDeclaration = (n: ChannelName): ChannelDeclaration => declared(n);
export const isPaid = (n: ChannelName): n is PaidChannel => declared(n).kind === 'paid';
export const reachesCustomer = (n: ChannelName): n is CustomerChannel => declared(n).reaches === 'customer';
