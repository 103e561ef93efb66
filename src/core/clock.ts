// Time as every action, job and channel reads it: one clock, so tests move time by hand instead of
// sleeping (test/helpers/clock.ts).

export type Clock = { now(): number };

export const systemClock: Clock = { now: () => Date.now() };
