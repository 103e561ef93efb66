// Apple's WalletIssuer: on a ring, every pass of the ticket moves to a new version (its status says
// "ready", with a changeMessage that shows on the lock screen) and every device registered for it
// gets an APNs push; the ring counts as delivered when a device fetched the updated pass after it
// (the PassKit web service records that fetch and says so on the bus, actions/wallet-passes.ts),
// like a page's confirmation. On a close, the passes change once more (collected, cancelled,
// expired), the devices are told, and their registrations are erased a little later. Test mode never calls APNs:
// the push is simulated and the test helpers play the device (test/helpers/wallet-device.ts).
import type { FastifyBaseLogger as Logger } from 'fastify';
import type { Bus } from '../../../core/bus.ts';
import type { Clock } from '../../../core/clock.ts';
import type { Db } from '../../../core/db.ts';
import type { Ticket } from '../../../core/ticket.ts';
import type { Metrics } from '../../../core/metrics.ts';
import type { RingTarget } from '../../../core/ring.ts';
import { wasDelivered } from '../../../store/ring-deliveries.ts';
import { idTime } from '../../../domain/ids.ts';
import {
  bumpTicketPasses,
  deletePushToken,
  deleteTicketRegistrations,
  listTicketPasses,
  listTicketRegistrations,
  type WalletRegistration,
} from '../../../store/wallet-passes.ts';
import { waitForAck } from '../../../realtime/ring-relay.ts';
import { sendOnce, type SendOnceDeps, type SendOutcome } from '../../send-once.ts';
import { SIMULATED_DETAIL } from '../../ringer.ts';
import type { WalletChange, WalletIssuer, WalletOutcome } from '../issuer.ts';
import type { ApnsSender } from './apns.ts';

export type AppleIssuerDeps = { db: Db; bus: Bus; clock: Clock; log: Logger; sendTimeoutMs: number; metrics?: Metrics };

/**
 * How long after a ring a pushed pass not fetched yet keeps the ring open (its job asks again):
 * an online phone fetches within seconds; one that has not by then is not waited for.
 */
export const WALLET_CONFIRM_WINDOW_MS = 15_000;

/** The send claims' channel: APNs accepting a push is not the delivery (the fetch is), so not `wallet`. */
export const APNS_SEND_CHANNEL = 'apns';

export class AppleWalletIssuer implements WalletIssuer {
  readonly name = 'apple' as const;
  private readonly deps: AppleIssuerDeps;
  private readonly apns: ApnsSender;
  private readonly once: SendOnceDeps;

  constructor(deps: AppleIssuerDeps, apns: ApnsSender) {
    this.deps = deps;
    this.apns = apns;
    this.once = { db: deps.db, clock: deps.clock, sendTimeoutMs: deps.sendTimeoutMs, metrics: deps.metrics };
  }

  /** Whether a ring of this ticket has a device to push to (the channel's look-ahead). */
  async hasTarget(target: RingTarget): Promise<boolean> {
    return (await listTicketRegistrations(this.deps.db, target.branchId, target.mode, target.ticketId)).length > 0;
  }

  update(change: WalletChange, signal: AbortSignal): Promise<WalletOutcome | null> {
    return change.ringId === null ? this.close(change) : this.ring(change, change.ringId, signal);
  }

  private async ring(change: WalletChange, ringId: string, signal: AbortSignal): Promise<WalletOutcome | null> {
    const { db, bus, clock } = this.deps;
    const { ticket } = change;
    const passes = await listTicketPasses(db, ticket.branchId, ticket.mode, ticket.id);
    if (passes.length === 0) return null;
    if (await wasDelivered(db, ringId, 'wallet')) return { delivered: true, detail: 'already delivered' };
    const devices = await listTicketRegistrations(db, ticket.branchId, ticket.mode, ticket.id);
    if (devices.length === 0) return { delivered: false, detail: 'no device registered the pass' };
    await db.write((tx) => bumpTicketPasses(tx, ticket.branchId, ticket.mode, ticket.id, ringId, clock.now()));
    // Listening before the push: a device can fetch the pass within a round trip of it.
    const stop = new AbortController();
    const fetched = waitForAck(bus, ringId, 'wallet', (a) => a.ticket_id === ticket.id, Number.POSITIVE_INFINITY, [signal, stop.signal]);
    const sends = await Promise.all(
      devices.map((d) =>
        sendOnce(this.once, { ringId, channel: APNS_SEND_CHANNEL, target: d.deviceId }, ticket.id, signal, 'resend', () =>
          this.push(d, change),
        ),
      ),
    );
    const accepted = sends.filter((s) => s?.delivered === true).length;
    const cut = sends.some((s) => s === null);
    if (accepted === 0 && !cut) {
      stop.abort();
      const late = await fetched;
      if (late.delivered) return { delivered: true, detail: 'the device fetched the updated pass' };
      return { delivered: false, detail: sends.map((s) => s?.detail ?? 'pending').join('; ') };
    }
    // Apple delivers when it can: not having heard yet is not "not reached", and the ring's job asks
    // again. Past the window it is (no wait then): the SMS fallback, held back meanwhile, may go.
    const late = clock.now() - idTime(ringId) > WALLET_CONFIRM_WINDOW_MS;
    if (late) stop.abort();
    const result = await fetched;
    if (result.delivered) return { delivered: true, detail: 'the device fetched the updated pass' };
    if (late) return { delivered: false, detail: 'pushed; no device fetched the pass in time' };
    return { delivered: false, detail: 'pushed; no device fetched the pass yet', pending: true };
  }

  /**
   * A close, in two runs of its job: first the passes change and the devices are told (`pending`:
   * the job comes back), then, once the devices had time to ask what changed (which needs their
   * registration), the registrations are erased.
   */
  private async close(change: WalletChange): Promise<WalletOutcome | null> {
    const { db, clock } = this.deps;
    const { ticket } = change;
    const passes = await listTicketPasses(db, ticket.branchId, ticket.mode, ticket.id);
    if (passes.length === 0) return null;
    const closedAt = ticket.closedAt ?? clock.now();
    if (passes.every((p) => p.ringId === null && p.updatedAt > closedAt)) {
      // The push tokens go with the ticket (PRODUCT.md §14); the pass itself stays fetchable, voided.
      const erased = await db.write((tx) => deleteTicketRegistrations(tx, ticket.branchId, ticket.mode, ticket.id));
      return { delivered: null, detail: `${change.reason}: ${erased} registrations erased` };
    }
    const devices = await listTicketRegistrations(db, ticket.branchId, ticket.mode, ticket.id);
    await db.write((tx) => bumpTicketPasses(tx, ticket.branchId, ticket.mode, ticket.id, null, Math.max(clock.now(), closedAt + 1)));
    const sent = await Promise.all(devices.map((d) => this.push(d, change)));
    const ok = sent.filter((s) => s.delivered === true).length;
    return { delivered: null, detail: `${change.reason}: ${ok} of ${devices.length} devices told`, pending: true };
  }

  private async push(device: WalletRegistration, change: WalletChange): Promise<SendOutcome> {
    if (!change.livemode || change.ticket.mode !== 'live') return simulated(change.ticket);
    const res = await this.apns.send(device.pushToken);
    if (res.ok) return { delivered: true, detail: 'accepted by APNs' };
    if (res.gone) {
      await this.deps.db.write((tx) => deletePushToken(tx, device.pushToken));
      return { delivered: false, detail: `${res.detail}; registration removed` };
    }
    this.deps.log.warn({ apns: res.detail }, 'APNs refused a wallet push');
    return { delivered: false, detail: res.detail };
  }
}

/** Test mode: APNs is never called; the push counts as accepted and the test helper plays the device. */
function simulated(ticket: Ticket): SendOutcome {
  if (ticket.mode !== 'test') return { delivered: false, detail: 'refused: simulated pushes serve test mode only' };
  return { delivered: true, detail: SIMULATED_DETAIL };
}
