// Opted-out numbers are kept as HMAC-SHA-256 digests, keyed with 32 random bytes generated once
// per service and shared by every node through service_settings (first writer wins). A copy of
// the opt-out table alone does not list phone numbers; the key is in the same database, so this
// is not protection against someone who has all of it (a phone number has too few digits for
// any digest to stand against that): it keeps numbers out of a table that has no use for them.
import { createHmac, randomBytes } from 'node:crypto';
import type { Db } from '../../core/db.ts';
import { ensureServiceSetting, getServiceSetting } from '../../store/service-settings.ts';

const SETTING = 'sms_phone_digest_key';
const keys = new WeakMap<Db, Promise<Buffer>>();

async function load(db: Db, now: number): Promise<Buffer> {
  const stored =
    (await getServiceSetting(db, SETTING)) ?? (await ensureServiceSetting(db, SETTING, randomBytes(32).toString('base64url'), now));
  return Buffer.from(stored, 'base64url');
}

/** The digest of an E.164 number. Never call inside a write: the first call may write the key. */
export async function phoneDigest(db: Db, phone: string, now: number): Promise<string> {
  let key = keys.get(db);
  if (key === undefined) {
    key = load(db, now);
    keys.set(db, key);
    key.catch(() => keys.delete(db)); // a failed read is tried again by the next call
  }
  return createHmac('sha256', await key)
    .update(phone, 'utf8')
    .digest('base64url');
}
