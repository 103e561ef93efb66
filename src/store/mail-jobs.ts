// A mail job's end (src/mail/send-mail.ts). Finished jobs are kept a week to look into what ran
// (retention.ts); a mail's payload holds an address and a live link, so it is erased as the job
// finishes, leaving the kind and the outcome.
import type { Db } from '../core/db.ts';

export async function finishMailJob(db: Db, id: string, kind: string, now: number, outcome: string | null): Promise<void> {
  await db.write((tx) =>
    tx.run('UPDATE jobs SET done_at = $2, locked_until = NULL, payload = $3, last_error = $4 WHERE id = $1', [
      id,
      now,
      JSON.stringify({ kind, erased: true }),
      outcome,
    ]),
  );
}
