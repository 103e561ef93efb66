// A wallet a ticket can be added to as a pass (Apple Wallet, Google Wallet: PRODUCT.md §14). The
// `wallet` ring channel (wallet-channel.ts) tells every configured issuer about each ring and each
// close of a ticket; an issuer with no pass for the ticket answers null and contacts no one, so
// nothing is sent to Apple or Google until a customer added the pass.
import type { RingBranch, RingReason } from '../../core/ring.ts';
import type { Ticket } from '../../core/ticket.ts';

/** What changed on the pass: a ring (the status says "ready", with a message that notifies) or a close. */
export type WalletChangeReason = RingReason | 'collected' | 'cancelled' | 'expired';

export type WalletChange = {
  /** The ticket after the change. */
  ticket: Ticket;
  branch: RingBranch;
  reason: WalletChangeReason;
  /** The ring this change belongs to (null for a close): the key an issuer dedupes its sends by. */
  ringId: string | null;
  livemode: boolean;
};

/**
 * What one issuer did. `delivered` follows the ring channels' rule (src/core/ring.ts): true only on
 * a confirmation that the customer's device has the change (Apple: the device fetched the updated
 * pass after the push); `pending`: not known yet, ask again.
 */
export type WalletOutcome = { delivered: boolean | null; detail: string; pending?: boolean };

export interface WalletIssuer {
  readonly name: 'apple' | 'google';
  /** null: the ticket has no pass in this wallet (no one was contacted). */
  update(change: WalletChange, signal: AbortSignal): Promise<WalletOutcome | null>;
}
