// The live side of one node, built once in the composition root: presence, the SSE hub, the
// cached reads behind snapshots, and the two channels (page, display) the ringer uses.
import type { BaseServices } from '../core/ctx.ts';
import type { Channel } from '../channels/ringer.ts';
import { createPageChannel } from '../channels/page.ts';
import { createDisplayChannel } from '../channels/display.ts';
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
  pageChannel: Channel;
  displayChannel: Channel;
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
  const deps = { db: services.db, bus: services.bus, presence };
  return {
    services,
    presence,
    hub,
    data,
    pageChannel: createPageChannel(deps),
    displayChannel: createDisplayChannel(deps),
    // Attached to the hub like any connection: closing the hub closes them too.
    simulated: new SimulatedClients({ services, hub, data }),
    async close() {
      await hub.close();
      await presence.close();
    },
  };
}
