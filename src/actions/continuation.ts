// What an action may leave to do after its transaction commits. A ready commits the ticket's
// change, its ring and the ring's job first, and only then contacts the customer, which must happen
// outside any transaction; what that found is recorded by a second, short transaction, which also
// gives the answer. An action returns either its answer or a Continuation; whoever runs it (the
// write path for a request, src/write/, or a job handler) commits the first transaction, runs
// `proceed` and commits what it returns.
import type { Ctx, TxCtx } from '../core/ctx.ts';

export class Continuation<A> {
  /**
   * What another process needs to finish this continuation when the one that committed the first
   * transaction died before the second: JSON, kept with the request's Idempotency-Key, and turned
   * back into a continuation by the write's `resume`. Never what only this process knows.
   */
  readonly saved: unknown;
  /**
   * The work after the commit; resolves with what records it and answers, which the write path
   * runs in a transaction of its own (given the ctx in it, as a verb is).
   */
  readonly proceed: (ctx: Ctx) => Promise<(ctx: TxCtx) => Promise<A>>;
  /**
   * The longest the work takes (a ring: its deadline), so that whoever waits for it (a request
   * with the same Idempotency-Key) knows when its process must have died.
   */
  readonly withinMs: number;

  constructor(saved: unknown, proceed: (ctx: Ctx) => Promise<(ctx: TxCtx) => Promise<A>>, withinMs = 0) {
    this.saved = saved;
    this.proceed = proceed;
    this.withinMs = withinMs;
  }
}
