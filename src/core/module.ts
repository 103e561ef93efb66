// What a feature (a channel or a connector) installs into the app, declared once in its own folder
// (decision 0076). The composition root (app.ts), the route table and /readyz iterate the installed
// modules instead of naming each: a new connector or channel adds its module to one list and
// touches none of them. `Routes` is what the HTTP layer mounts (http/module.ts fixes it); core only
// carries it, so that a module's declaration is one value.
import type { Config } from './config.ts';
import type { Services } from './ctx.ts';
import type { EventRecord, EventWrites } from './events.ts';
import type { JobKind, JobRegistry } from './job-registry.ts';
import type { Ticket } from './ticket.ts';

/**
 * A change readybell made to a ticket, as a module sees it: the event recorded, the ticket as it
 * now is (with its server-set `source`), and whether a request made it (a staff page or an API
 * call) rather than a job (a connector's own, a reminder). Typed: nobody reads an event's body.
 */
export type TicketChange = {
  readonly event: EventRecord;
  readonly ticket: Ticket;
  readonly byRequest: boolean;
  /** Wakes this node's job runner: after the commit, for a job the hook wrote. */
  readonly wakeJobs: () => void;
};

/** Runs as the change's event is recorded; what it writes with `out` commits with the change, or not at all. */
export type TicketHook = (change: TicketChange, out: EventWrites) => Promise<void>;

/** A scheduled job's payload: the slot (time / everyMs) it runs for, or the start of a node. */
export type SchedulePayload = { slot: number | 'start' };

/**
 * Work a module wants done every `everyMs`, as a job in the job queue (one per slot, whichever
 * node enqueues it first; runner/schedules.ts), and once when a node starts.
 */
export type Schedule = {
  readonly kind: JobKind<SchedulePayload>;
  readonly everyMs: number;
  run(services: Services): Promise<unknown>;
};

export type FeatureModule<Routes = unknown> = {
  /** Its name, in lists, paths and /readyz: 'square', 'apple-wallet'. */
  readonly name: string;
  /** Where /readyz reports its health: `connectors.<name>` or `channels.<name>`. */
  readonly kind: 'channel' | 'connector';
  /** The configuration names it reads (README's table); `configured` says whether the operator set it up. */
  readonly config: readonly string[];
  configured(config: Config): boolean;
  /** Its job kinds and their handlers. */
  jobs?(registry: JobRegistry): void;
  readonly schedules?: readonly Schedule[];
  readonly ticketHooks?: readonly TicketHook[];
  /** What /readyz says of it (no tenant named); its failure never makes the node unready. */
  health?(services: Services): Promise<Record<string, unknown>>;
  /** The shared objects its operations refer to (JSON Schemas with an $id), added with the contract's. */
  readonly schemas?: readonly object[];
  /** Its routes, mounted by the route table (http/route-table.ts). */
  readonly routes?: Routes;
  /** The staff page's screen for it, when it has one. */
  readonly screen?: string;
};
