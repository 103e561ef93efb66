export type BucketPolicy = { name: string; capacity: number; refillPerSecond: number };
export type BucketState = { tokens: number; updatedAtMs: number };
export type TakeResult = {
  allowed: boolean;
  state: BucketState;
  remaining: number;
  resetSeconds: number;
  retryAfterSeconds: number;
};

// Refill arithmetic in floating point drifts (0.1 * 10 may land a hair under 1); without this
// tolerance a client could be denied a token it has visibly earned.
const EPSILON = 1e-9;

function snap(tokens: number): number {
  const rounded = Math.round(tokens);
  return Math.abs(tokens - rounded) < EPSILON ? rounded : tokens;
}

function refill(policy: BucketPolicy, state: BucketState | undefined, nowMs: number): BucketState {
  if (state === undefined || !Number.isFinite(state.updatedAtMs)) {
    return { tokens: policy.capacity, updatedAtMs: nowMs };
  }
  // A corrupt stored count must never become free tokens, hence NaN -> 0 rather than full.
  const stored = Number.isFinite(state.tokens) ? Math.min(Math.max(state.tokens, 0), policy.capacity) : 0;
  if (nowMs < state.updatedAtMs) {
    // Clocks of several nodes disagree a little; a node behind must not mint tokens, and keeping
    // the later timestamp stops the same interval being counted twice when time catches up.
    return { tokens: stored, updatedAtMs: state.updatedAtMs };
  }
  const earned = ((nowMs - state.updatedAtMs) * policy.refillPerSecond) / 1000;
  return { tokens: snap(Math.min(policy.capacity, stored + earned)), updatedAtMs: nowMs };
}

function secondsUntil(policy: BucketPolicy, tokens: number, target: number): number {
  const deficit = target - tokens;
  if (deficit <= EPSILON) return 0;
  return Math.max(1, Math.ceil(deficit / policy.refillPerSecond - EPSILON));
}

/**
 * Takes `cost` tokens (default 1) if available. Denied requests still store the refilled state so
 * the caller can write back one value whatever the outcome.
 * Throws RangeError for a cost the bucket can never hold: that is a configuration bug, and
 * answering "retry later" would leave the client waiting forever.
 */
export function takeToken(policy: BucketPolicy, state: BucketState | undefined, nowMs: number, cost: number = 1): TakeResult {
  if (!Number.isFinite(cost) || cost < 0 || cost > policy.capacity) {
    throw new RangeError(`cost must be between 0 and ${policy.capacity}, got ${cost}`);
  }
  const current = refill(policy, state, nowMs);
  const allowed = current.tokens + EPSILON >= cost;
  const tokens = allowed ? snap(Math.max(0, current.tokens - cost)) : current.tokens;
  const next: BucketState = { tokens, updatedAtMs: current.updatedAtMs };
  const whole = Math.max(0, Math.floor(tokens + EPSILON));
  return {
    allowed,
    state: next,
    remaining: whole,
    resetSeconds: secondsUntil(policy, tokens, Math.min(policy.capacity, whole + 1)),
    retryAfterSeconds: allowed ? 0 : Math.max(1, secondsUntil(policy, tokens, cost)),
  };
}

export function windowSeconds(policy: BucketPolicy): number {
  return Math.ceil(policy.capacity / policy.refillPerSecond);
}
