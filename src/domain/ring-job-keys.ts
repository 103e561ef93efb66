// The keys of the ring's jobs in the outbox. A job's key makes it happen once across nodes and
// restarts, so the scheduler that writes a job and the ring that looks one up must build the same
// key: one definition each, pure, below both.

/** One per (ticket, ring number), so a ring is finished by one job. */
export const ringJobKey = (ticketId: string, seq: number): string => `ring:${ticketId}:${seq}`;
export const reminderKey = (ticketId: string, n: number): string => `remind:${ticketId}:${n}`;
export const snoozeEndKey = (ticketId: string, until: number): string => `snooze:${ticketId}:${until}`;
