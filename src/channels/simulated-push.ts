// The push service readybell simulates in test mode. The test helper `subscribe` gives a test
// ticket a subscription at this endpoint, so a ring reaches the "customer" through the push
// channel as in live mode (claimed once per ring, recorded, `channel_used: "push"`), without a
// browser and without the network: the push channel accepts it here instead of sending.
//
// No browser can register it: the endpoint is no http(s) URL, and POST /t/<token>/push takes only
// those (endpointProblem). The push channel accepts it only for a test ticket rung in test mode.
import type { PushSubscriptionRecord } from '../store/push-subscriptions.ts';
import type { Ticket } from '../core/ticket.ts';
import { newId } from '../domain/ids.ts';
import type { SendOutcome } from './send-once.ts';
import { SIMULATED_DETAIL } from './ringer.ts';
import type { RingRequest } from '../core/ring.ts';

export const SIMULATED_PUSH_ENDPOINT = 'readybell-test:simulated-push';

export const isSimulatedPush = (sub: Pick<PushSubscriptionRecord, 'endpoint'>): boolean => sub.endpoint === SIMULATED_PUSH_ENDPOINT;

/** The subscription the test helper stores (keys are not needed: nothing is encrypted or sent). */
export function simulatedPushSubscription(ticket: Pick<Ticket, 'id' | 'branchId' | 'mode'>, now: number): PushSubscriptionRecord {
  if (ticket.mode !== 'test') throw new Error('the simulated push service serves test tickets only');
  return {
    id: newId('pushSubscription', now),
    ticketId: ticket.id,
    branchId: ticket.branchId,
    mode: 'test',
    endpoint: SIMULATED_PUSH_ENDPOINT,
    p256dh: '',
    auth: '',
    createdAt: now,
  };
}

/** What the simulated push service answers: it accepts a test ring, and refuses anything live. */
export function simulatedPushSend(request: RingRequest): SendOutcome {
  if (request.livemode || request.ticket.mode !== 'test')
    return { delivered: false, detail: 'refused: the simulated push service serves test mode only' };
  return { delivered: true, detail: SIMULATED_DETAIL };
}
