// The account's data in one JSON download (decision 0083): the account, its users (no password
// hashes), and each branch with its settings, queues, and both modes' tickets and events. Written
// as it is read, a page at a time, so memory stays bounded whatever the account's history: the
// answer is streamed, never built whole. Only the signed-in owner's account is read (ctx.accountId).
import type { Read } from '../core/ctx.ts';
import type { Mode } from '../core/tenancy.ts';
import { iso, presentBranch, presentTicket } from '../contract/present.ts';
import { listUsers } from '../store/credentials.ts';
import { listEventBodies } from '../store/outbox.ts';
import { getAccount, listBranches, listQueues } from '../store/tenancy.ts';
import { listTickets } from '../store/tickets.ts';
import { requireStaffRole } from './staff-only.ts';

const PAGE = 100;
const MODES: readonly Mode[] = ['live', 'test'];
const json = (v: unknown): string => JSON.stringify(v);

export type AccountExport = { filename: string; chunks: AsyncIterable<string> };

/** Items of a list read page by page, newest first, written as a JSON array. */
async function* array<T>(
  page: (after: string | undefined) => Promise<{ data: T[]; hasMore: boolean }>,
  write: (t: T) => string,
  id: (t: T) => string,
) {
  yield '[';
  let after: string | undefined;
  let first = true;
  for (;;) {
    const { data, hasMore } = await page(after);
    if (data.length > 0) {
      yield (first ? '' : ',') + data.map(write).join(',');
      first = false;
    }
    if (!hasMore || data.length === 0) break;
    after = id(data[data.length - 1]!);
  }
  yield ']';
}

export const exportAccount: Read<void, AccountExport> = async ({ ctx }) => {
  requireStaffRole(ctx, 'owner');
  const { db, clock, config } = ctx.services;
  const account = (await getAccount(db, ctx.accountId))!;
  const now = clock.now();
  async function* chunks(): AsyncGenerator<string> {
    yield `{"object":"account_export","exported_at":${json(iso(now))},"account":${json({ id: account.id, name: account.name, plan: account.plan, created_at: iso(account.createdAt) })}`;
    const users = await listUsers(db, account.id);
    yield `,"users":${json(users.map((u) => ({ id: u.id, email: u.email, role: u.role, created_at: iso(u.createdAt) })))}`;
    yield ',"branches":[';
    let firstBranch = true;
    for (const branch of await listBranches(db, account.id)) {
      const queues = await listQueues(db, branch.id);
      yield `${firstBranch ? '' : ','}{"branch":${json(presentBranch(branch, account.plan))},"queues":${json(queues.map((q) => ({ name: q.name, created_at: iso(q.createdAt) })))}`;
      firstBranch = false;
      for (const mode of MODES) {
        yield `,"${mode}":{"tickets":`;
        yield* array(
          (after) => listTickets(db, branch.id, mode, { limit: PAGE, startingAfter: after }),
          (t) => json(presentTicket(t, config.publicUrl)),
          (t) => t.id,
        );
        yield ',"events":';
        yield* array(
          (after) => listEventBodies(db, branch.id, mode, { limit: PAGE, startingAfter: after }),
          (body) => body,
          (body) => (JSON.parse(body) as { id: string }).id,
        );
        yield '}';
      }
      yield '}';
    }
    yield ']}';
  }
  const day = new Date(now).toISOString().slice(0, 10);
  return { filename: `readybell-${account.id}-${day}.json`, chunks: chunks() };
};
