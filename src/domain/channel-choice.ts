// Which channels one ring may use: a parameter of every ring, decided per ring by the ring
// module's policy (src/domain/ring-escalation.ts) and stored on the ring's row, so that the job that
// finishes a ring uses the channels its start chose. The ring policy (ring-policy.ts) then leaves
// out what cannot reach anyone (no subscription, no page open, no phone, plan, branch settings).
import type { ChannelChoice } from '../core/ring.ts';
import { FREE_CHANNELS } from '../core/channel-catalogue.ts';

/** Everything the customer has, the paid channels only as the fallback: every ring until a branch says otherwise. */
export const EVERY_CHANNEL: ChannelChoice = { free: FREE_CHANNELS, sms: 'fallback' };
