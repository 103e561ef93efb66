// The VAPID key pair that identifies this service to push services. A browser's subscription is
// bound to the public key it was made with, so every node must sign with the same pair: it comes
// from the configuration, or is generated once and stored in the database (first writer wins).
import webpush from 'web-push';
import type { Db } from '../core/db.ts';
import type { PushConfig } from '../core/config.ts';
import { vapidKeyProblem } from '../domain/channel-config.ts';
import { ensureServiceSetting, getServiceSetting, replaceServiceSetting } from '../store/service-settings.ts';
import { deleteAllPushSubscriptions } from '../store/push-subscriptions.ts';

export type VapidKeys = { publicKey: string; privateKey: string; subject: string; source: 'config' | 'store' };

const SETTING = 'vapid_keys';

function parseStored(value: string): { publicKey: string; privateKey: string } {
  const v = JSON.parse(value) as { public_key: string; private_key: string };
  if (vapidKeyProblem(v.public_key, v.private_key) !== null)
    throw new Error('the stored VAPID key pair is damaged; rotate it with `readybell vapid --rotate`');
  return { publicKey: v.public_key, privateKey: v.private_key };
}

const serialise = (k: { publicKey: string; privateKey: string }): string =>
  JSON.stringify({ public_key: k.publicKey, private_key: k.privateKey });

/** Reads (or on first use creates) the key pair; cached for the life of the process. */
export class VapidKeyStore {
  private readonly db: Db;
  private readonly config: PushConfig;
  private readonly now: () => number;
  private cached: Promise<VapidKeys> | null = null;

  constructor(db: Db, config: PushConfig, now: () => number) {
    this.db = db;
    this.config = config;
    this.now = now;
  }

  get(): Promise<VapidKeys> {
    this.cached ??= this.load().catch((err: unknown) => {
      this.cached = null; // a failed read (store briefly down) is retried by the next ring
      throw err;
    });
    return this.cached;
  }

  private async load(): Promise<VapidKeys> {
    const { subject } = this.config;
    if (this.config.vapid !== null) return { ...this.config.vapid, subject, source: 'config' };
    const stored = await getServiceSetting(this.db, SETTING);
    const value = stored ?? (await ensureServiceSetting(this.db, SETTING, serialise(webpush.generateVAPIDKeys()), this.now()));
    return { ...parseStored(value), subject, source: 'store' };
  }
}

/**
 * Replaces the stored pair. Subscriptions made for the old public key cannot be pushed to any
 * more (push services check the signature against it), so they are removed; running nodes keep
 * the key they cached until restarted.
 */
export async function rotateStoredVapidKeys(db: Db, now: number): Promise<{ publicKey: string; removedSubscriptions: number }> {
  const keys = webpush.generateVAPIDKeys();
  const removed = await db.write(async (tx) => {
    await replaceServiceSetting(tx, SETTING, serialise(keys), now);
    return deleteAllPushSubscriptions(tx);
  });
  return { publicKey: keys.publicKey, removedSubscriptions: removed };
}
