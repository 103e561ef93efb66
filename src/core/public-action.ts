// A verb with no tenant yet: sign-up, a forgotten password, a link followed from an email. Nobody
// is signed in and no branch or mode is known, so it gets the services and its transaction rather
// than a tenant's Ctx; it decides whom it acts for from its input (decision 0081).
import type { Services } from './ctx.ts';
import type { Tx } from './db.ts';

export type PublicCtx = { services: Services; tx: Tx; requestId: string | null };

export type PublicAction<I, O> = (args: { ctx: PublicCtx; input: I }) => Promise<O>;
