// The write path of a verb with no tenant (core/public-action.ts): the verb named with its input,
// in a transaction of its own, its after-commit work (a mail job's wake-up) run once it has
// committed. No Idempotency-Key: these requests are not keyed to a branch, and each is safe to
// repeat (a second sign-up of the same email sends a mail instead; a link works once).
import type { Services } from '../core/ctx.ts';
import type { PublicAction } from '../core/public-action.ts';
import { writeThenHooks } from './after-commit.ts';

export function runPublicWrite<I, O>(services: Services, requestId: string | null, verb: PublicAction<I, O>, input: I): Promise<O> {
  return writeThenHooks(services.db, (tx) => verb({ ctx: { services, tx, requestId }, input }));
}
