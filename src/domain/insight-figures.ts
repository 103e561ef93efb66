// What an owner reads about the counter (PRODUCT.md §13), computed from rollup rows: counts add
// up, and durations are fixed-bucket histograms (with their sum and their longest), so a median
// or a 90th percentile over any set of hours is read from the summed buckets without keeping a
// single ticket's time. Pure: the store reads the rows, this file says what they mean.
import { CHANNELS_USED, type ChannelUsed } from '../core/channel-catalogue.ts';

/**
 * Upper bounds (seconds) of the duration buckets; a last bucket holds everything from 3 hours.
 * Narrow where pickups and preparations usually fall (15 s steps up to 3 minutes), so a median is
 * estimated to within 15 s there and to within a fifth of its value above.
 */
export const BUCKET_BOUNDS_S: readonly number[] = [
  15, 30, 45, 60, 90, 120, 150, 180, 240, 300, 360, 420, 480, 600, 720, 900, 1200, 1500, 1800, 2700, 3600, 5400, 7200, 10800,
];
export const BUCKETS = BUCKET_BOUNDS_S.length + 1;

export function bucketOf(ms: number): number {
  const s = ms / 1000;
  const i = BUCKET_BOUNDS_S.findIndex((bound) => s < bound);
  return i === -1 ? BUCKETS - 1 : i;
}

const range = (prefix: string): string[] => Array.from({ length: BUCKETS }, (_, i) => `${prefix}${i}`);
export const PREP_BUCKET_COLUMNS = range('prep_b');
export const PICKUP_BUCKET_COLUMNS = range('pickup_b');

/**
 * What a ring's `channel_used` names (the catalogue's channels by strength, then `none` and
 * `unknown`), each counted as the sum `rings_<channel>`: stored as rows keyed by channel
 * (store/insights-rollups.ts), so a new channel needs no new column (decision 0074).
 */
export const RING_CHANNELS = CHANNELS_USED;
export type RingChannel = ChannelUsed;
/** The sums of rings by channel, as a read names them. */
export const CHANNEL_SUMS: readonly string[] = RING_CHANNELS.map((c) => `rings_${c}`);
/** The sum a ring reached through `channel` adds to (one of CHANNEL_SUMS); undefined for any other name. */
export const channelSumOf = (channel: string): string | undefined =>
  (RING_CHANNELS as readonly string[]).includes(channel) ? `rings_${channel}` : undefined;

/** Columns of the hour's row that add up across rows. */
export const SUM_COLUMNS: readonly string[] = [
  'created',
  'ready',
  'collected',
  'cancelled',
  'expired',
  'rings',
  'rings_called_out',
  'acknowledged',
  'snoozed',
  'prep_sum_ms',
  ...PREP_BUCKET_COLUMNS,
  'pickup_count',
  'pickup_sum_ms',
  ...PICKUP_BUCKET_COLUMNS,
];
/** Columns whose rows combine by their largest value. */
export const MAX_COLUMNS: readonly string[] = ['prep_max_ms', 'pickup_max_ms'];

export type Sums = Record<string, number>;

export function emptySums(): Sums {
  const s: Sums = {};
  for (const c of SUM_COLUMNS) s[c] = 0;
  for (const c of CHANNEL_SUMS) s[c] = 0;
  for (const c of MAX_COLUMNS) s[c] = 0;
  return s;
}

/** Adds one rollup row (or another Sums) into `into`. Values may come as strings (PostgreSQL's numeric sums). */
export function addInto(into: Sums, row: Record<string, unknown>): Sums {
  for (const c of SUM_COLUMNS) into[c]! += Number(row[c] ?? 0);
  for (const c of CHANNEL_SUMS) into[c]! += Number(row[c] ?? 0);
  for (const c of MAX_COLUMNS) into[c] = Math.max(into[c]!, Number(row[c] ?? 0));
  return into;
}

export type Duration = {
  count: number;
  median_seconds: number | null;
  p90_seconds: number | null;
  longest_seconds: number | null;
  mean_seconds: number | null;
};

export type Figures = {
  created: number;
  collected: number;
  cancelled: number;
  expired: number;
  open: number;
  ready: number;
  preparation: Duration;
  pickup: Duration;
  rings: number;
  rings_per_ticket: number | null;
  reached: Record<RingChannel, number>;
  reached_share: Record<RingChannel, number | null>;
  called_out: number;
  called_out_share: number | null;
  acknowledged: number;
  acknowledgement_rate: number | null;
  snoozed: number;
};

/**
 * The `p` quantile (0 < p ≤ 1) of a histogram, in ms: the nearest-rank sample's bucket, and within
 * it a linear guess between its bounds (the upper one no higher than the longest seen). The
 * highest rank is the longest itself, so one sample is reported exactly.
 */
export function quantileMs(counts: readonly number[], maxMs: number, p: number): number | null {
  const n = counts.reduce((a, b) => a + b, 0);
  if (n === 0) return null;
  const rank = Math.max(1, Math.ceil(p * n));
  if (rank >= n) return maxMs;
  let before = 0;
  for (const [i, c] of counts.entries()) {
    if (before + c >= rank) {
      const upper = Math.min(i < BUCKET_BOUNDS_S.length ? BUCKET_BOUNDS_S[i]! * 1000 : maxMs, maxMs);
      const lower = Math.min(i === 0 ? 0 : BUCKET_BOUNDS_S[i - 1]! * 1000, upper);
      return lower + ((upper - lower) * (rank - before - 0.5)) / c;
    }
    before += c;
  }
  return maxMs;
}

const seconds = (ms: number | null): number | null => (ms === null ? null : Math.round(ms / 1000));
const ratio = (a: number, b: number, digits = 4): number | null => (b === 0 ? null : Number((a / b).toFixed(digits)));

function duration(s: Sums, buckets: readonly string[], count: number, sumCol: string, maxCol: string): Duration {
  const counts = buckets.map((c) => s[c]!);
  const max = s[maxCol]!;
  return {
    count,
    median_seconds: seconds(quantileMs(counts, max, 0.5)),
    p90_seconds: seconds(quantileMs(counts, max, 0.9)),
    longest_seconds: count === 0 ? null : seconds(max),
    mean_seconds: count === 0 ? null : seconds(s[sumCol]! / count),
  };
}

/**
 * The figures of summed rows. Rates are over the tickets made ready (each is rung at least once,
 * and is the one a customer could answer); channel shares and board call-outs over the rings.
 */
export function figuresOf(s: Sums, open: number): Figures {
  const ready = s.ready!;
  const rings = s.rings!;
  const reached = Object.fromEntries(RING_CHANNELS.map((c) => [c, s[`rings_${c}`]!])) as Record<RingChannel, number>;
  return {
    created: s.created!,
    collected: s.collected!,
    cancelled: s.cancelled!,
    expired: s.expired!,
    open,
    ready,
    preparation: duration(s, PREP_BUCKET_COLUMNS, ready, 'prep_sum_ms', 'prep_max_ms'),
    pickup: duration(s, PICKUP_BUCKET_COLUMNS, s.pickup_count!, 'pickup_sum_ms', 'pickup_max_ms'),
    rings,
    rings_per_ticket: ratio(rings, ready, 2),
    reached,
    reached_share: Object.fromEntries(RING_CHANNELS.map((c) => [c, ratio(reached[c], rings)])) as Record<RingChannel, number | null>,
    called_out: s.rings_called_out!,
    called_out_share: ratio(s.rings_called_out!, rings),
    acknowledged: s.acknowledged!,
    acknowledgement_rate: ratio(s.acknowledged!, ready),
    snoozed: s.snoozed!,
  };
}

/** The longest period one insights read adds up: a year (and its comparison, as long). */
export const MAX_PERIOD_DAYS = 366;
