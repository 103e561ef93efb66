// Tells the node's caches of verified credentials that a key was revoked or an account's plan
// changed. Within a process: listeners, once the change has committed (the auth cache listens and
// forwards the news to other nodes over the bus). Across processes on one machine: every change
// also stores a fresh marker, which a server on the embedded store reads whenever the store says
// another process has committed (watchOtherProcesses), so a `readybell keys revoke` run beside it
// applies from the server's next request.
import type { Db, Tx } from '../core/db.ts';
import { getServiceSetting, replaceServiceSetting } from './service-settings.ts';
import { randomAlphanumeric } from '../domain/ids.ts';

type Listener = () => void;
const listeners = new Set<Listener>();
const MARKER = 'credentials_changed';

export function onCredentialsChanged(listener: Listener): () => void {
  listeners.add(listener);
  return () => listeners.delete(listener);
}

export async function credentialsChanged(tx: Tx): Promise<void> {
  await replaceServiceSetting(tx, MARKER, randomAlphanumeric(16), Date.now());
  tx.afterCommit(() => {
    for (const l of listeners) l();
  });
}

/**
 * Returns a check to run before every use of cached credentials: it calls `onChange` when another
 * process has changed credentials since the last check (and at the first). Costs one `PRAGMA data_version` while
 * nothing else writes, and one marker read after another process's commit; nothing where the
 * store cannot tell (PostgreSQL: Redis carries the CLI's news there, or the cache's expiry).
 */
export function watchOtherProcesses(db: Db, onChange: () => void): () => Promise<void> | undefined {
  let version: number | null = null;
  let marker: string | undefined;
  return () => {
    const v = db.dataVersion();
    if (v === null || v === version) return undefined;
    return (async () => {
      const current = await getServiceSetting(db, MARKER);
      version = v;
      if (current !== marker) onChange();
      marker = current;
    })();
  };
}
