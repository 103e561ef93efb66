// The day a branch's ticket numbers restart: its local calendar date (local-time.ts, whose
// per-minute answer makes this cheap on every create).
import { localHour } from './local-time.ts';

/** The branch's local calendar date, 'YYYY-MM-DD'. Throws RangeError for an invalid zone. */
export function businessDay(nowMs: number, timeZone: string): string {
  return localHour(nowMs, timeZone).day;
}
