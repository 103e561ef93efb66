import type { Clock } from '../../src/core/clock.ts';

/** A clock tests move by hand: no sleeping for time. */
export class FakeClock implements Clock {
  private t: number;
  constructor(start = Date.parse('2026-11-22T12:00:00.000Z')) {
    this.t = start;
  }
  now(): number {
    return this.t;
  }
  advance(ms: number): void {
    this.t += ms;
  }
  set(ms: number): void {
    this.t = ms;
  }
}
