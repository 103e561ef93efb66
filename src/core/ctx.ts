// What every action receives besides its input: who acts, on which branch and mode, and the
// services it may use. Built by the HTTP edge, the CLI or a job runner; actions never look at
// HTTP requests or process.env.
//
// Services is built once, complete, by the composition root (src/app.ts) and never changed
// afterwards; a test that needs another ringer, resolver or hook says so to createApp. Every field
// is a port defined in src/core, so that actions depend on what they use, not on the code that
// provides it. Ctx, Services and the event hook refer to one another, so they share this module.
import type { EventSink } from './events.ts';
import type { FastifyBaseLogger as Logger } from 'fastify';
import type { Bus } from './bus.ts';
import type { ClientSimulator } from './client-simulator.ts';
import type { Clock } from './clock.ts';
import type { Config } from './config.ts';
import type { Db, Queryable, Tx } from './db.ts';
import type { HostLookup } from './host-lookup.ts';
import type { JobWaker } from './jobs.ts';
import type { Metrics } from './metrics.ts';
import type { Ringer } from './ring.ts';
import type { Mode, Plan, Role } from './tenancy.ts';

export type Actor =
  | { kind: 'api_key'; keyId: string }
  | { kind: 'user'; userId: string; role: Role }
  | { kind: 'customer'; ticketId: string }
  | { kind: 'system'; name: string };

export type Services = {
  readonly config: Config;
  readonly db: Db;
  readonly clock: Clock;
  readonly log: Logger;
  readonly bus: Bus;
  readonly metrics?: Metrics;
  readonly ringer: Ringer;
  /** Where recorded events go, with the change that caused them (the webhook fan-out; events.ts). */
  readonly events: EventSink;
  /** This node's job runner: woken after a commit that enqueued jobs, or handed them directly. */
  readonly jobs: JobWaker;
  /** Resolves webhook hosts (URL checks and delivery); the system resolver when unset. Tests substitute it. */
  readonly webhookLookup?: HostLookup;
  /** This node's simulated pages and boards, opened by the test helpers; unset without the live side. */
  readonly simulatedClients?: ClientSimulator;
};

/**
 * The services that need no other: built first, so that the ringer, the live side and the job
 * runner can be built from them before the Services that hold those.
 */
export type BaseServices = Pick<Services, 'config' | 'db' | 'clock' | 'log' | 'bus' | 'metrics'>;

export type Ctx = {
  actor: Actor;
  accountId: string;
  plan: Plan;
  branchId: string;
  mode: Mode;
  requestId: string | null;
  idempotencyKey: string | null;
  services: Services;
};

/** A ctx inside a write transaction: the only way an action may change data. */
export type TxCtx = Ctx & { tx: Tx };

export type Action<I, O> = (args: { ctx: TxCtx; input: I }) => Promise<O>;

/**
 * A read verb: the same shape as an action, its access rules checked inside it like an action's,
 * but it changes nothing. One that reads through `readerOf(ctx)` may also be called by a write,
 * inside its transaction, to show what the write changed.
 */
export type Read<I, O> = (args: { ctx: Ctx; input: I }) => Promise<O>;

/** Where a read verb reads: the write's transaction when it runs inside one, else the store. */
export const readerOf = (ctx: Ctx): Queryable => ('tx' in ctx ? (ctx as TxCtx).tx : ctx.services.db);

export const livemode = (ctx: Ctx): boolean => ctx.mode === 'live';
