// The Google Wallet issuer (PRODUCT.md §14, decision 0072): the save link of a ticket's generic pass,
// and the pass's updates on each ring and close through the Wallet REST API.
//
// - The object is recorded (and, live, inserted at Google) when the customer asks for the save
//   link: nothing reaches Google before that tap, and from then on every ring can update the
//   object whether or not the save has been completed yet.
// - A ring patches the status and adds a message with the ring's id, notifying (TEXT_AND_NOTIFY)
//   while the pass has had fewer than Google's three notifications in 24 hours, plainly (TEXT)
//   after that. One ring adds one message: the send is claimed once per ring (send-once.ts).
// - A close patches the state (COMPLETED, INACTIVE, EXPIRED) without notifying, and forgets the object.
// - Google sends no delivery receipt, so an update never says the customer was reached (`delivered`
//   false, the detail says what was done); a send cut off by a crash is `null`, unknown.
// - Test mode contacts no one: the same records and limits, with the calls simulated.
import { randomBytes } from 'node:crypto';
import type { FastifyBaseLogger as Logger } from 'fastify';
import type { Config, GoogleWalletConfig } from '../../../core/config.ts';
import type { Db } from '../../../core/db.ts';
import type { Clock } from '../../../core/clock.ts';
import type { Metrics } from '../../../core/metrics.ts';
import type { RingBranch, RingTarget } from '../../../core/ring.ts';
import type { Ticket } from '../../../core/ticket.ts';
import { ticketUrl } from '../../../contract/present.ts';
import {
  countGoogleWalletNotifications,
  deleteGoogleWalletObject,
  getGoogleWalletObject,
  markGoogleWalletObjectInserted,
  NOTIFY_LIMIT,
  recordGoogleWalletObject,
  takeGoogleWalletNotification,
  type GoogleWalletObject,
} from '../../../store/google-wallet-objects.ts';
import { SIMULATED_DETAIL } from '../../ringer.ts';
import { sendOnce, type SendOnceDeps, type SendOutcome } from '../../send-once.ts';
import type { WalletChange, WalletIssuer, WalletOutcome } from '../issuer.ts';
import { accessTokens, serviceAccountKey } from './access-token.ts';
import { genericClass, genericObject, objectFields, ringMessage } from './pass-object.ts';
import { saveLink } from './save-link.ts';
import { walletApi, type ApiAnswer } from './wallet-api.ts';

export type GoogleWalletIssuer = WalletIssuer & {
  readonly name: 'google';
  /** The "Add to Google Wallet" link of an open ticket; records the ticket's object (and, live, inserts it at Google). */
  saveUrl(ticket: Ticket, branch: RingBranch): Promise<string>;
  /** Whether the ticket has a pass object (the wallet channel's look-ahead: none, no one to try). */
  hasTarget(target: RingTarget): Promise<boolean>;
};

export type GoogleWalletDeps = { db: Db; clock: Clock; log: Logger; config: Config; google: GoogleWalletConfig; metrics?: Metrics };

const isClosing = (reason: WalletChange['reason']): reason is 'collected' | 'cancelled' | 'expired' =>
  reason === 'collected' || reason === 'cancelled' || reason === 'expired';
/**
 * How long the customer's tap waits for the insert at Google; past it the redirect goes out and the
 * insert finishes in the background (the save link carries the whole object either way).
 */
const LINK_INSERT_BUDGET_MS = 3000;
const NO_RECEIPT = 'Google sends no delivery receipt';
const ok = (a: ApiAnswer): boolean => a.status >= 200 && a.status < 300;

export function createGoogleWalletIssuer(deps: GoogleWalletDeps): GoogleWalletIssuer {
  const { db, clock, log, config, google } = deps;
  const key = serviceAccountKey(google);
  const timeoutMs = config.ring.sendTimeoutMs;
  const api = walletApi(google.apiUrl, accessTokens(google, key, clock, timeoutMs), timeoutMs);
  const once: SendOnceDeps = { db, clock, sendTimeoutMs: timeoutMs, metrics: deps.metrics };
  let classInserted = false;

  /**
   * Live: the class (once per process; 409 when it exists) and the object, so rings can update it
   * before the save. Once Google has the object (accepted, or 409: it has it), that is recorded and
   * later taps insert nothing: a link tapped 120 times used to insert the same object 120 times.
   */
  async function insertAtGoogle(pass: GoogleWalletObject, object: object): Promise<void> {
    try {
      if (!classInserted) {
        const c = await api.insert('genericClass', genericClass(google.issuerId));
        classInserted = ok(c) || c.status === 409;
      }
      const o = await api.insert('genericObject', object);
      if (ok(o) || o.status === 409) await markGoogleWalletObjectInserted(db, pass.objectId, clock.now());
      else log.warn({ status: o.status }, 'google wallet refused a pass object');
    } catch (err) {
      // The save link carries the whole object: Google creates it when the customer saves.
      log.warn({ err: (err as Error).message }, 'google wallet insert failed');
    }
  }

  async function ring(change: WalletChange, ringId: string, pass: GoogleWalletObject): Promise<SendOutcome> {
    const branch = change.branch;
    const { ticket } = change;
    if (change.livemode) {
      const patched = await api.patchObject(pass.objectId, objectFields(ticket, branch));
      if (patched.status === 404) return forget(pass, 'gone (404): Google has no such pass; forgotten');
      if (!ok(patched)) return { delivered: false, detail: `rejected (${patched.status})` };
    }
    const notify = await takeGoogleWalletNotification(db, pass.objectId, clock.now());
    let sent = notify;
    if (change.livemode) {
      let added = await api.addMessage(pass.objectId, ringMessage(ringId, ticket, branch, notify));
      // Google counts too (QuotaExceeded): its refusal of a notification still leaves the message to add.
      if (notify && added.status === 429) {
        sent = false;
        added = await api.addMessage(pass.objectId, ringMessage(ringId, ticket, branch, false));
      }
      if (!ok(added)) return { delivered: false, detail: `updated; message rejected (${added.status})` };
    }
    const done = sent
      ? `notified (${await countGoogleWalletNotifications(db, pass.objectId, clock.now())} of ${NOTIFY_LIMIT} in 24 h)`
      : `updated without notifying: Google allows ${NOTIFY_LIMIT} notifications per pass in 24 h`;
    return { delivered: false, detail: `${change.livemode ? '' : `${SIMULATED_DETAIL}: `}${done}; ${NO_RECEIPT}` };
  }

  async function close(change: WalletChange, pass: GoogleWalletObject): Promise<WalletOutcome> {
    // The close's reason is the ticket's final status (the ticket read with the change says it too).
    const closed = isClosing(change.reason) ? { ...change.ticket, status: change.reason } : change.ticket;
    const fields = objectFields(closed, change.branch);
    if (!change.livemode) return forget(pass, `${SIMULATED_DETAIL}: pass ${fields.state}`);
    try {
      const patched = await api.patchObject(pass.objectId, fields);
      if (patched.status === 404) return forget(pass, 'gone (404): Google has no such pass; forgotten');
      // Forgotten whatever Google answered: a closed ticket keeps no way to its customer.
      return forget(pass, ok(patched) ? `pass ${fields.state}` : `close rejected (${patched.status}); forgotten`);
    } catch (err) {
      return forget(pass, `close failed (${(err as Error).message}); forgotten`.slice(0, 200));
    }
  }

  async function forget(pass: GoogleWalletObject, detail: string): Promise<SendOutcome> {
    await deleteGoogleWalletObject(db, pass.objectId);
    return { delivered: false, detail };
  }

  return {
    name: 'google',

    async hasTarget(target) {
      return (await getGoogleWalletObject(db, { id: target.ticketId, branchId: target.branchId, mode: target.mode })) !== undefined;
    },

    async saveUrl(ticket, branch) {
      const proposed = { ticketId: ticket.id, branchId: ticket.branchId, mode: ticket.mode, createdAt: clock.now() };
      const existing = await getGoogleWalletObject(db, ticket);
      // `<issuer id>.<random>`: never the ticket's id or token, which would let the pass find the ticket.
      const pass =
        existing ??
        (await recordGoogleWalletObject(db, { ...proposed, objectId: `${google.issuerId}.${randomBytes(16).toString('base64url')}` }));
      const url = ticketUrl(config.publicUrl, ticket.token);
      const object = genericObject(pass.objectId, google.issuerId, ticket, branch, url);
      if (ticket.mode === 'live' && pass.insertedAt === null) await withinBudget(insertAtGoogle(pass, object), LINK_INSERT_BUDGET_MS);
      return saveLink({
        clientEmail: google.serviceAccount.clientEmail,
        key,
        origin: new URL(config.publicUrl).origin,
        nowSeconds: Math.floor(clock.now() / 1000),
        genericClass: genericClass(google.issuerId),
        genericObject: object,
      });
    },

    async update(change, signal) {
      const pass = await getGoogleWalletObject(db, change.ticket);
      if (pass === undefined) return null;
      if (change.ringId === null) return close(change, pass);
      const ringId = change.ringId;
      // A repeat of one ring (the in-line attempt and the outbox job) adds no second message; a
      // sender that died mid-send is "unknown", since sending again could notify twice.
      const target = { ringId, channel: 'wallet', target: `google:${pass.objectId}` };
      const outcome = await sendOnce(once, target, change.ticket.id, signal, 'unknown', () => ring(change, ringId, pass));
      return outcome ?? { delivered: false, detail: 'pending', pending: true };
    },
  };
}

/** Waits for `work` at most `ms`; the work itself goes on. */
async function withinBudget(work: Promise<void>, ms: number): Promise<void> {
  let timer: NodeJS.Timeout | undefined;
  const budget = new Promise<void>((resolve) => {
    timer = setTimeout(resolve, ms);
  });
  try {
    await Promise.race([work, budget]);
  } finally {
    clearTimeout(timer);
  }
}
