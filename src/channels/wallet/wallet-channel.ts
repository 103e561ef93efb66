// The `wallet` ring channel (PRODUCT.md §2, §14): on each ring of a ticket it asks every configured
// wallet issuer (Apple, Google) to update the ticket's pass. Delivered only when an issuer confirms
// the customer's device has the change (Apple: the device fetched the updated pass after the push),
// so `channel_used: "wallet"` is never a guess. An issuer still waiting for that confirmation at the
// deadline leaves the ring open (`unconfirmed`): the ring's job asks again, like a slow push.
import type { Channel, QuietCheck } from '../ringer.ts';
import type { ChannelAttempt, RingRequest, RingTarget } from '../../core/ring.ts';
import type { RingBranch } from '../../core/ring.ts';
import type { WalletChange, WalletIssuer, WalletOutcome } from './issuer.ts';

/** An issuer that can tell, before a ring, whether it has anyone to reach (Apple: a registered device). */
export type LookingIssuer = WalletIssuer & { hasTarget?(target: RingTarget): Promise<boolean> };

const NO_PASS: ChannelAttempt = { channel: 'wallet', delivered: false, detail: 'no pass' };

export class WalletChannel implements Channel {
  readonly name = 'wallet' as const;
  private readonly issuers: readonly LookingIssuer[];
  private readonly branchOf: (request: RingRequest) => Promise<RingBranch>;

  constructor(issuers: readonly LookingIssuer[], branchOf: (request: RingRequest) => Promise<RingBranch>) {
    this.issuers = issuers;
    this.branchOf = branchOf;
  }

  async lookAhead(target: RingTarget): Promise<QuietCheck> {
    // An issuer that cannot tell counts as having someone to try.
    const any = await Promise.all(this.issuers.map((i) => (i.hasTarget === undefined ? true : i.hasTarget(target))));
    return () => (any.includes(true) ? null : { ...NO_PASS });
  }

  async ring(request: RingRequest, signal: AbortSignal): Promise<ChannelAttempt> {
    const change: WalletChange = {
      ticket: request.ticket,
      branch: request.first?.branch ?? (await this.branchOf(request)),
      reason: request.reason,
      ringId: request.ringId,
      livemode: request.livemode,
    };
    const outcomes = await Promise.all(
      this.issuers.map((issuer) =>
        issuer.update(change, signal).then(
          (o) => (o === null ? null : { issuer: issuer.name, ...o }),
          (err: Error): WalletOutcome & { issuer: string } => ({ issuer: issuer.name, delivered: false, detail: `error: ${err.message}` }),
        ),
      ),
    );
    const known = outcomes.filter((o) => o !== null);
    if (known.length === 0) return { ...NO_PASS };
    const detail = known.map((o) => `${o.issuer}: ${o.detail}`).join('; ');
    if (known.some((o) => o.delivered === true)) return { channel: 'wallet', delivered: true, detail };
    return {
      channel: 'wallet',
      delivered: known.some((o) => o.delivered === null) ? null : false,
      detail,
      ...(known.some((o) => o.pending === true) ? { unconfirmed: true as const } : {}),
    };
  }
}
