// The live side of one node, built once in the composition root: presence, the SSE hub and the
// cached reads behind snapshots. The two channels that ring through it (page, display) are
// built from its presence by the composition root: channels sit above realtime.
import type { BaseServices } from '../core/ctx.ts';
import type { BusMessage } from '../core/bus.ts';
import { LiveHub } from './hub.ts';
import { LiveData } from './live-data.ts';
import { MemoryPresence, type Presence } from './presence.ts';
import { SimulatedClients } from './simulated-clients.ts';

export type Live = {
  /** The base services the live side reads with (a Live is the deps of page and board streams). */
  services: BaseServices;
  presence: Presence;
  hub: LiveHub;
  data: LiveData;
  /** The pages and boards the test helpers open (test mode only). */
  simulated: SimulatedClients;
  close(): Promise<void>;
};

export const DEFAULT_HEARTBEAT_MS = 15_000;

/** `branch:<id>:<mode>` → its parts; null for other topics. */
function branchTopic(topic: string): { branchId: string; mode: 'live' | 'test' } | null {
  const m = /^branch:([^:]+):(live|test)$/.exec(topic);
  return m === null ? null : { branchId: m[1]!, mode: m[2] as 'live' | 'test' };
}

export function createLive(services: BaseServices, opts: { heartbeatMs?: number; presence?: Presence } = {}): Live {
  const presence = opts.presence ?? new MemoryPresence();
  const data = new LiveData(services.db, services.clock);
  const hub = new LiveHub(
    { bus: services.bus, presence, log: services.log },
    {
      heartbeatMs: opts.heartbeatMs ?? DEFAULT_HEARTBEAT_MS,
      onTopicMessage(topic: string, message: BusMessage) {
        const b = branchTopic(topic);
        if (b === null) return;
        const type = String(message.type);
        if (type.startsWith('ticket.'))
          data.ticketsChanged(b.branchId, b.mode, typeof message.queue === 'string' ? message.queue : null, String(message.status));
        else if (type.startsWith('announcement.')) data.announcementsChanged(b.branchId, b.mode);
      },
      onTopicChange(topic: string) {
        // While no connection here listened, this node missed the branch's messages: start afresh.
        const b = branchTopic(topic);
        if (b === null) return;
        data.ticketsChanged(b.branchId, b.mode, null);
        data.announcementsChanged(b.branchId, b.mode);
        data.branchChanged(b.branchId);
      },
    },
  );
  return {
    services,
    presence,
    hub,
    data,
    // Attached to the hub like any connection: closing the hub closes them too.
    simulated: new SimulatedClients({ services, hub, data }),
    async close() {
      await hub.close();
      await presence.close();
    },
  };
}
