// The shared OAuth flow's states (migration 0017, decision 0076): one row per authorize round of
// any connector, the state and the asking session both kept only as hashes.
import type { Tx } from '../core/db.ts';
import { one } from './db.ts';

export type OAuthStateRow = { connector: string; branchId: string; sessionHash: string };

/** Starts a round; the rounds nobody finished are dropped here, so the table holds the live ones. */
export async function saveOAuthState(
  tx: Tx,
  s: { connector: string; branchId: string; stateHash: string; sessionHash: string; expiresAt: number; now: number },
): Promise<void> {
  await tx.run('DELETE FROM connector_oauth_states WHERE expires_at < $1', [s.now]);
  await tx.run(
    'INSERT INTO connector_oauth_states (state_hash, connector, branch_id, session_hash, expires_at) VALUES ($1, $2, $3, $4, $5)',
    [s.stateHash, s.connector, s.branchId, s.sessionHash, s.expiresAt],
  );
}

/**
 * Spends a state, whatever follows (a declined or mismatched callback spends it too); null when it
 * is unknown, another connector's, or expired.
 */
export async function takeOAuthState(tx: Tx, connector: string, stateHash: string, now: number): Promise<OAuthStateRow | null> {
  const r = await one<{ connector: string; branch_id: string; session_hash: string; expires_at: unknown }>(
    tx,
    `SELECT connector, branch_id, session_hash, expires_at FROM connector_oauth_states WHERE state_hash = $1 ${tx.forUpdate}`,
    [stateHash],
  );
  if (r === undefined) return null;
  await tx.run('DELETE FROM connector_oauth_states WHERE state_hash = $1', [stateHash]);
  if (r.connector !== connector || Number(r.expires_at) < now) return null;
  return { connector: r.connector, branchId: String(r.branch_id), sessionHash: String(r.session_hash) };
}
