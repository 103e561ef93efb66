// What every action receives besides its input: who acts, on which branch and mode, and the
// services it may use. Built by the HTTP edge, the CLI or a job runner; actions never look at
// HTTP requests or process.env.
import type { Config } from '../config.ts';
import type { Db, Tx } from '../store/db.ts';
import type { Mode, Plan } from '../store/tenancy.ts';
import type { Role } from '../store/credentials.ts';
import type { FastifyBaseLogger as Logger } from 'fastify';
import type { Bus } from '../realtime/bus.ts';
import type { Ringer } from '../channels/ringer.ts';
import type { EventHook } from './record-event.ts';
import type { Metrics } from '../metrics.ts';
import type { HostLookup } from '../webhooks/url-policy.ts';
import type { JobRunner } from '../jobs/runner.ts';
import type { SimulatedClients } from '../realtime/simulated-clients.ts';

export type Actor =
  | { kind: 'api_key'; keyId: string }
  | { kind: 'user'; userId: string; role: Role }
  | { kind: 'customer'; ticketId: string }
  | { kind: 'system'; name: string };

export type Clock = { now(): number };
export const systemClock: Clock = { now: () => Date.now() };

export type Services = {
  config: Config;
  db: Db;
  clock: Clock;
  log: Logger;
  bus: Bus;
  ringer: Ringer;
  /** Run inside the transaction of every recorded event (webhook fan-out). */
  eventHooks: EventHook[];
  metrics?: Metrics;
  /** This node's job runner: woken after a commit that enqueued jobs, or handed them directly. */
  jobs?: Pick<JobRunner, 'wake' | 'adopter' | 'adopt'>;
  /** Resolves webhook hosts (URL checks and delivery); the system resolver when unset. Tests substitute it. */
  webhookLookup?: HostLookup;
  /** This node's simulated pages and boards, opened by the test helpers; unset without the live side. */
  simulatedClients?: SimulatedClients;
};

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

export const livemode = (ctx: Ctx): boolean => ctx.mode === 'live';
