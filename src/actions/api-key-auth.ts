// What authenticating an API key reads: the key behind a hash, with its account's plan, and
// whether a key still holds (an open /v1/stream re-checks it). The auth plugin caches verified
// keys; watchCredentials tells it when a change committed here or in another process on this
// machine (the CLI beside an embedded store) must clear that cache.
import type { Services } from '../core/ctx.ts';
import type { Plan } from '../core/tenancy.ts';
import { channels } from '../core/bus.ts';
import { apiKeyUsable, findApiKeyWithPlan, type ApiKeyRecord } from '../store/credentials.ts';
import { onCredentialsChanged, watchOtherProcesses } from '../store/credential-changes.ts';

/** The key with this SHA-256 hash, revoked or not, with its account's plan; undefined when none has it. */
export async function findKeyByHash(services: Services, hash: string): Promise<(ApiKeyRecord & { plan: Plan }) | undefined> {
  const record = await findApiKeyWithPlan(services.db, hash);
  return record && { ...record, plan: record.plan as Plan };
}

/** Whether the key may still be used: it exists, is not revoked, and its account is not being deleted. */
export async function apiKeyHolds(services: Services, keyId: string): Promise<boolean> {
  return apiKeyUsable(services.db, keyId);
}

export type CredentialWatch = {
  /** Run before every use of cached credentials: resolves once another process's change, if any, has been told. */
  check: () => Promise<void> | undefined;
  stop: () => void;
};

/**
 * Calls `onChange` after a credential change committed in this process, and when another process
 * on this machine changed credentials since the last check (and at the first).
 */
export function watchCredentials(services: Services, onChange: () => void): CredentialWatch {
  return { check: watchOtherProcesses(services.db, onChange), stop: onCredentialsChanged(onChange) };
}

export type CredentialNews = {
  /** Resolves once every committed change's news has been taken by the bus; null when none is in flight. */
  inFlight: () => Promise<unknown> | null;
  stop: () => void;
};

/** Publishes each credential change committed in this process on the bus, for the other nodes' caches. */
export function announceCredentialChanges(services: Services): CredentialNews {
  const sending = new Set<Promise<void>>();
  const stop = onCredentialsChanged(() => {
    const sent: Promise<void> = services.bus.publish(channels.auth, { type: 'credentials.changed' }).then(() => {
      sending.delete(sent);
    });
    sending.add(sent);
  });
  return { inFlight: () => (sending.size === 0 ? null : Promise.all(sending)), stop };
}
