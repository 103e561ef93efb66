// `readybell vapid [--rotate]`: shows the public key browsers subscribe with (creating the stored
// pair on first use, like the first ring would), or replaces the stored pair. Rotation is for a
// leaked private key: subscriptions made for the old key stop working, so they are removed, and
// running nodes keep the old key until restarted.
import type { Config } from '../core/config.ts';
import type { Db } from '../core/db.ts';
import { AppError } from '../domain/errors.ts';
import { rotateStoredVapidKeys, VapidKeyStore } from '../channels/vapid.ts';

export async function runVapid(
  db: Db,
  config: Config,
  opts: { rotate: boolean },
): Promise<{ output: Record<string, unknown>; human: string }> {
  const now = Date.now();
  if (!opts.rotate) {
    const keys = await new VapidKeyStore(db, config.push, () => now).get();
    const where = keys.source === 'config' ? 'from VAPID_PUBLIC_KEY' : 'stored in the database, shared by every node';
    return {
      output: { public_key: keys.publicKey, source: keys.source, subject: keys.subject },
      human: `VAPID public key (${where}):\n  ${keys.publicKey}\nsubject: ${keys.subject}`,
    };
  }
  if (config.push.vapid !== null) {
    throw new AppError(
      'conflict',
      'The VAPID keys come from VAPID_PUBLIC_KEY and VAPID_PRIVATE_KEY; set new ones there (e.g. `npx web-push generate-vapid-keys`) and restart.',
    );
  }
  const rotated = await rotateStoredVapidKeys(db, now);
  return {
    output: { public_key: rotated.publicKey, source: 'store', removed_subscriptions: rotated.removedSubscriptions },
    human: `New VAPID public key:\n  ${rotated.publicKey}\nRemoved ${rotated.removedSubscriptions} push subscription(s) made for the old key (customers can turn notifications on again).\nRestart every node so that all of them sign with the new key.`,
  };
}
