// The verbs of Apple Wallet passes (PRODUCT.md §14, decision 0071): a customer adds the ticket to
// Wallet (a pass is issued: random serial number, random authentication token kept only hashed),
// and the device speaks Apple's PassKit web service: it registers and unregisters for updates, asks
// which of its passes changed, and fetches the latest version — which, after a ring's push, is the
// ring's delivery receipt. A device proves itself with the pass's token (constant-time compare);
// a pass of another tenant or mode is reached only through its own serial and token.
import { createHash, timingSafeEqual } from 'node:crypto';
import type { Services } from '../core/ctx.ts';
import type { Ticket } from '../core/ticket.ts';
import { randomToken } from '../domain/ids.ts';
import { getBranch, type Branch } from '../store/tenancy.ts';
import { getTicket, getTicketByToken } from '../store/tickets.ts';
import {
  getWalletPass,
  insertWalletPass,
  nextVersion,
  registerDevice,
  unregisterDevice,
  updatedSerials,
  type WalletPass,
} from '../store/wallet-passes.ts';
import { confirmWalletRing } from '../realtime/ring-confirm.ts';

export { MAX_DEVICES_PER_PASS, MAX_PASSES_PER_TICKET } from '../store/wallet-passes.ts';

/** What a pass is built from: the pass's row, its ticket as it is now, and the shop. */
export type PassSubject = { pass: WalletPass; ticket: Ticket; branch: Branch };

const hashToken = (token: string): string => createHash('sha256').update(token).digest('hex');

function tokenMatches(pass: WalletPass, token: string): boolean {
  const given = Buffer.from(hashToken(token), 'hex');
  const kept = Buffer.from(pass.authTokenHash, 'hex');
  return given.length === kept.length && timingSafeEqual(given, kept);
}

/** The pass behind a device's `ApplePass <token>`, with its ticket; null when either does not match. */
async function authorized(services: Services, serialNumber: string, token: string): Promise<PassSubject | null> {
  const pass = await getWalletPass(services.db, serialNumber);
  if (pass === undefined || !tokenMatches(pass, token)) return null;
  const [ticket, branch] = await Promise.all([
    getTicket(services.db, pass.branchId, pass.mode, pass.ticketId),
    getBranch(services.db, pass.branchId),
  ]);
  return ticket === undefined || branch === undefined ? null : { pass, ticket, branch };
}

/** The open ticket behind a customer's link, and its shop, that a pass would show (null: no such link, or closed). */
export async function openTicketForPass(services: Services, linkToken: string): Promise<{ ticket: Ticket; branch: Branch } | null> {
  const ticket = await getTicketByToken(services.db, linkToken);
  if (ticket === undefined || ticket.closedAt !== null) return null;
  const branch = await getBranch(services.db, ticket.branchId);
  return branch === undefined ? null : { ticket, branch };
}

/**
 * "Add to Apple Wallet" on the customer page: a new pass for the ticket, with the token the pass
 * carries (never stored in clear). `full` when the ticket holds its limit of passes and a device
 * registered every one of them: nothing is written, and no pass on a phone is evicted.
 */
export async function issueApplePass(
  services: Services,
  found: { ticket: Ticket; branch: Branch },
): Promise<(PassSubject & { authenticationToken: string }) | 'full'> {
  const { ticket, branch } = found;
  const now = services.clock.now();
  const authenticationToken = randomToken(32);
  const pass: WalletPass = {
    serialNumber: randomToken(18),
    ticketId: ticket.id,
    branchId: ticket.branchId,
    mode: ticket.mode,
    authTokenHash: hashToken(authenticationToken),
    ringId: null,
    updatedAt: nextVersion(now),
    createdAt: now,
  };
  if (!(await services.db.write((tx) => insertWalletPass(tx, pass)))) return 'full';
  return { pass, ticket, branch, authenticationToken };
}

/**
 * Register a device for a pass's updates: `created` (201), `exists` (200), `full` when the pass has
 * its limit of devices (nothing written), null when unauthorized (401).
 */
export async function registerWalletDevice(
  services: Services,
  r: { serialNumber: string; token: string; deviceId: string; pushToken: string },
): Promise<'created' | 'exists' | 'full' | null> {
  const subject = await authorized(services, r.serialNumber, r.token);
  // A closed ticket's pass keeps answering its device, but takes no new registrations (§14 erases them).
  if (subject === null) return null;
  if (subject.ticket.closedAt !== null) return 'exists';
  return services.db.write((tx) => registerDevice(tx, subject.pass, r.deviceId, r.pushToken, services.clock.now()));
}

/** Unregister a device: false when unauthorized (401). */
export async function unregisterWalletDevice(
  services: Services,
  r: { serialNumber: string; token: string; deviceId: string },
): Promise<boolean> {
  const pass = await getWalletPass(services.db, r.serialNumber);
  if (pass === undefined || !tokenMatches(pass, r.token)) return false;
  await services.db.write((tx) => unregisterDevice(tx, r.serialNumber, r.deviceId));
  return true;
}

/** The serial numbers the device registered whose passes changed after the tag (`since`, a version). */
export const listUpdatedWalletSerials = (
  services: Services,
  deviceId: string,
  since: number | null,
): Promise<{ serialNumbers: string[]; lastUpdated: number }> => updatedSerials(services.db, deviceId, since);

/**
 * The latest version of a pass for its device (null: unauthorized). Fetching a version that
 * announces a ring is that ring's delivery: it is recorded and told to the waiting channel.
 */
export async function fetchLatestWalletPass(services: Services, serialNumber: string, token: string): Promise<PassSubject | null> {
  const subject = await authorized(services, serialNumber, token);
  if (subject === null) return null;
  const { pass, ticket } = subject;
  if (pass.ringId !== null && ticket.status === 'ready') await confirmWalletRing(services, ticket, pass.ringId, pass.serialNumber);
  return subject;
}
