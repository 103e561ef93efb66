// Service-wide settings shared by every node (the VAPID key pair). First writer wins: a value is
// inserted only if absent, and everyone then reads the stored one, so two nodes starting at once
// still agree.
import type { Db, Queryable, Tx } from '../core/db.ts';
import { one } from './db.ts';

export async function getServiceSetting(q: Queryable, name: string): Promise<string | undefined> {
  return (await one<{ value: string }>(q, 'SELECT value FROM service_settings WHERE name = $1', [name]))?.value;
}

/** Stores `value` unless a value exists already; returns whichever is stored. */
export async function ensureServiceSetting(db: Db, name: string, value: string, now: number): Promise<string> {
  return db.write(async (tx) => {
    await tx.run('INSERT INTO service_settings (name, value, created_at) VALUES ($1, $2, $3) ON CONFLICT (name) DO NOTHING', [
      name,
      value,
      now,
    ]);
    return (await getServiceSetting(tx, name))!;
  });
}

export async function replaceServiceSetting(tx: Tx, name: string, value: string, now: number): Promise<void> {
  await tx.run(
    'INSERT INTO service_settings (name, value, created_at) VALUES ($1, $2, $3) ON CONFLICT (name) DO UPDATE SET value = excluded.value, created_at = excluded.created_at',
    [name, value, now],
  );
}
