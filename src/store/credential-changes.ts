// Tells the node's caches of verified credentials that a key was revoked or an account's plan
// changed, once the change has committed. The auth cache listens (and forwards the news to other
// nodes over the bus); the store functions that make such changes call credentialsChanged.
import type { Tx } from './db.ts';

type Listener = () => void;
const listeners = new Set<Listener>();

export function onCredentialsChanged(listener: Listener): () => void {
  listeners.add(listener);
  return () => listeners.delete(listener);
}

export function credentialsChanged(tx: Tx): void {
  tx.afterCommit(() => {
    for (const l of listeners) l();
  });
}
