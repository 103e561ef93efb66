// Apple Wallet passes and the devices registered for them (migration 0013). Every read that starts
// from a device's request goes through the serial number and the pass type's own token check
// (actions/wallet-passes.ts); every read that starts from a ticket is filtered by branch and mode.
import type { Queryable, Tx } from '../core/db.ts';
import type { Mode } from '../core/tenancy.ts';
import { one } from './db.ts';

export type WalletPass = {
  serialNumber: string;
  ticketId: string;
  branchId: string;
  mode: Mode;
  authTokenHash: string;
  ringId: string | null;
  updatedAt: number;
  createdAt: number;
};

export type WalletRegistration = { deviceId: string; serialNumber: string; pushToken: string };

/** A ticket keeps at most this many passes (a phone, a watch gets its copy from the phone, a re-add…). */
export const MAX_PASSES_PER_TICKET = 5;
/**
 * A pass takes at most this many devices (decision 0086): the phone it was added on, its paired
 * watch, and room for an iPad on the same Apple Account and a phone replaced while the ticket is open.
 */
export const MAX_DEVICES_PER_PASS = 4;
/** So one ring or close pushes to at most this many devices, whatever rows an older version let in. */
export const MAX_PUSHES_PER_RING = MAX_PASSES_PER_TICKET * MAX_DEVICES_PER_PASS;

const PASS_COLUMNS = 'serial_number, ticket_id, branch_id, mode, auth_token_hash, ring_id, updated_at, created_at';
type PassRow = {
  serial_number: string;
  ticket_id: string;
  branch_id: string;
  mode: Mode;
  auth_token_hash: string;
  ring_id: string | null;
  updated_at: number;
  created_at: number;
};
const toPass = (r: PassRow): WalletPass => ({
  serialNumber: r.serial_number,
  ticketId: r.ticket_id,
  branchId: r.branch_id,
  mode: r.mode,
  authTokenHash: r.auth_token_hash,
  ringId: r.ring_id,
  updatedAt: Number(r.updated_at),
  createdAt: Number(r.created_at),
});

/** A pass version: whole seconds (Last-Modified has no finer grain), at least a second after the last. */
export const nextVersion = (now: number, previous = 0): number => Math.max(Math.ceil(now / 1000) * 1000, previous + 1000);

/**
 * Holds the ticket's row until the commit, so that the passes and registrations of one ticket are
 * counted and written one transaction at a time: on PostgreSQL each statement after the lock sees
 * what the transaction before it committed (READ COMMITTED), so two nodes racing cannot both take
 * the last place. SQLite's single writer already serialises them.
 */
async function lockTicket(tx: Tx, ticketId: string): Promise<void> {
  await tx.query(`SELECT id FROM tickets WHERE id = $1 ${tx.forUpdate}`, [ticketId]);
}

/**
 * Stores a new pass, making room by evicting the ticket's oldest passes no device registered; a pass
 * a device registered is on someone's phone and is never evicted. False, with nothing written, when
 * the ticket holds its limit of passes and every one of them is registered.
 */
export async function insertWalletPass(tx: Tx, p: WalletPass): Promise<boolean> {
  await lockTicket(tx, p.ticketId);
  const held = await tx.query<{ serial_number: string; registered: number }>(
    `SELECT p.serial_number, CASE WHEN EXISTS (SELECT 1 FROM wallet_registrations r WHERE r.serial_number = p.serial_number) THEN 1 ELSE 0 END AS registered
     FROM wallet_passes p WHERE p.ticket_id = $1 AND p.branch_id = $2 AND p.mode = $3 ORDER BY p.created_at, p.serial_number`,
    [p.ticketId, p.branchId, p.mode],
  );
  const excess = held.length - MAX_PASSES_PER_TICKET + 1;
  const evictable = held.filter((h) => Number(h.registered) === 0).slice(0, Math.max(0, excess));
  if (evictable.length < excess) return false;
  for (const old of evictable) await tx.run('DELETE FROM wallet_passes WHERE serial_number = $1', [old.serial_number]);
  await tx.run(`INSERT INTO wallet_passes (${PASS_COLUMNS}) VALUES ($1, $2, $3, $4, $5, $6, $7, $8)`, [
    p.serialNumber,
    p.ticketId,
    p.branchId,
    p.mode,
    p.authTokenHash,
    p.ringId,
    p.updatedAt,
    p.createdAt,
  ]);
  return true;
}

export async function getWalletPass(q: Queryable, serialNumber: string): Promise<WalletPass | undefined> {
  const row = await one<PassRow>(q, `SELECT ${PASS_COLUMNS} FROM wallet_passes WHERE serial_number = $1`, [serialNumber]);
  return row === undefined ? undefined : toPass(row);
}

export async function listTicketPasses(q: Queryable, branchId: string, mode: Mode, ticketId: string): Promise<WalletPass[]> {
  const rows = await q.query<PassRow>(
    `SELECT ${PASS_COLUMNS} FROM wallet_passes WHERE ticket_id = $1 AND branch_id = $2 AND mode = $3 ORDER BY serial_number`,
    [ticketId, branchId, mode],
  );
  return rows.map(toPass);
}

/**
 * Moves every pass of the ticket to a new version announcing `ringId` (null: a close), once per
 * ring: a pass already announcing that ring keeps its version. Returns how many changed.
 */
export async function bumpTicketPasses(
  tx: Tx,
  branchId: string,
  mode: Mode,
  ticketId: string,
  ringId: string | null,
  now: number,
): Promise<number> {
  let changed = 0;
  for (const p of await listTicketPasses(tx, branchId, mode, ticketId)) {
    if (ringId !== null && p.ringId === ringId) continue;
    changed += await tx.run('UPDATE wallet_passes SET ring_id = $1, updated_at = $2 WHERE serial_number = $3 AND updated_at = $4', [
      ringId,
      nextVersion(now, p.updatedAt),
      p.serialNumber,
      p.updatedAt,
    ]);
  }
  return changed;
}

/**
 * `created` (201), `exists` (200: the device was registered already; its push token is refreshed),
 * `full`: the pass has its limit of devices, and nothing was written. The count and the insert run
 * under the ticket's lock, so the limit holds when registrations race on two nodes.
 */
export async function registerDevice(
  tx: Tx,
  pass: WalletPass,
  deviceId: string,
  pushToken: string,
  now: number,
): Promise<'created' | 'exists' | 'full'> {
  await lockTicket(tx, pass.ticketId);
  const updated = await tx.run('UPDATE wallet_registrations SET push_token = $1 WHERE device_id = $2 AND serial_number = $3', [
    pushToken,
    deviceId,
    pass.serialNumber,
  ]);
  if (updated > 0) return 'exists';
  const inserted = await tx.run(
    `INSERT INTO wallet_registrations (device_id, serial_number, push_token, ticket_id, branch_id, mode, created_at)
     SELECT $1, $2, $3, $4, $5, $6, CAST($7 AS BIGINT)
     WHERE (SELECT COUNT(*) FROM wallet_registrations WHERE serial_number = $2) < $8
     ON CONFLICT (device_id, serial_number) DO NOTHING`,
    [deviceId, pass.serialNumber, pushToken, pass.ticketId, pass.branchId, pass.mode, now, MAX_DEVICES_PER_PASS],
  );
  return inserted > 0 ? 'created' : 'full';
}

export async function unregisterDevice(tx: Tx, serialNumber: string, deviceId: string): Promise<void> {
  await tx.run('DELETE FROM wallet_registrations WHERE device_id = $1 AND serial_number = $2', [deviceId, serialNumber]);
}

/** APNs said the token is no longer valid (410, BadDeviceToken): every registration using it goes. */
export async function deletePushToken(tx: Tx, pushToken: string): Promise<void> {
  await tx.run('DELETE FROM wallet_registrations WHERE push_token = $1', [pushToken]);
}

export async function listTicketRegistrations(q: Queryable, branchId: string, mode: Mode, ticketId: string): Promise<WalletRegistration[]> {
  const rows = await q.query<{ device_id: string; serial_number: string; push_token: string }>(
    `SELECT device_id, serial_number, push_token FROM wallet_registrations WHERE ticket_id = $1 AND branch_id = $2 AND mode = $3
     ORDER BY created_at, device_id, serial_number LIMIT ${MAX_PUSHES_PER_RING}`,
    [ticketId, branchId, mode],
  );
  return rows.map((r) => ({ deviceId: r.device_id, serialNumber: r.serial_number, pushToken: r.push_token }));
}

/** Retention at close: a push token reaches someone's phone. */
export async function deleteTicketRegistrations(tx: Tx, branchId: string, mode: Mode, ticketId: string): Promise<number> {
  return tx.run('DELETE FROM wallet_registrations WHERE ticket_id = $1 AND branch_id = $2 AND mode = $3', [ticketId, branchId, mode]);
}

/**
 * The serial numbers of `passTypeId`'s passes this device is registered for, changed after
 * `since` (a tag this service handed out: a version in ms), with the newest version as the next tag.
 */
export async function updatedSerials(
  q: Queryable,
  deviceId: string,
  since: number | null,
): Promise<{ serialNumbers: string[]; lastUpdated: number }> {
  const rows = await q.query<{ serial_number: string; updated_at: number }>(
    `SELECT p.serial_number, p.updated_at FROM wallet_registrations r JOIN wallet_passes p ON p.serial_number = r.serial_number
     WHERE r.device_id = $1 AND p.updated_at > $2 ORDER BY p.serial_number`,
    [deviceId, since ?? 0],
  );
  return {
    serialNumbers: rows.map((r) => r.serial_number),
    lastUpdated: rows.reduce((m, r) => Math.max(m, Number(r.updated_at)), 0),
  };
}
