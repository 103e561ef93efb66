// `readybell accounts|branches|keys|users list`: what the other commands change or revoke, with
// the ids they take. Keys show their last four characters only: the store keeps nothing more
// (a hash, which is never printed either).
import type { Db } from '../core/db.ts';
import { AppError } from '../domain/errors.ts';
import { iso } from '../contract/present.ts';
import { getAccount, getBranch, listAccounts, listBranches } from '../store/tenancy.ts';
import { listApiKeys, listUsers } from '../store/credentials.ts';
import { listBilling, listSignupTrialEnds, type BillingRecord } from '../store/billing.ts';

export type ListGroup = 'accounts' | 'branches' | 'keys' | 'users';

type Column<T> = [header: string, cell: (row: T) => string];

/** Human output: aligned columns, times in UTC to the minute (last use is recorded per minute). */
function table<T>(rows: T[], columns: Column<T>[], empty: string): string {
  if (rows.length === 0) return empty;
  const cells = [columns.map(([h]) => h), ...rows.map((r) => columns.map(([, cell]) => cell(r)))];
  const widths = columns.map((_, i) => Math.max(...cells.map((c) => c[i]!.length)));
  return cells.map((c) => c.map((v, i) => (i === c.length - 1 ? v : v.padEnd(widths[i]!))).join('  ')).join('\n');
}

const when = (ms: number | null, none: string): string => (ms === null ? none : new Date(ms).toISOString().slice(0, 16).replace('T', ' '));

function need(value: unknown, option: string, group: ListGroup): string {
  if (typeof value !== 'string' || value === '')
    throw new AppError('validation-failed', `--${option} is required: readybell ${group} list --${option} ID`);
  return value;
}

async function needAccount(db: Db, id: string): Promise<void> {
  if ((await getAccount(db, id)) === undefined) throw new AppError('not-found', `No account ${id}.`);
}

export async function runList(
  db: Db,
  group: ListGroup,
  values: { account?: string; branch?: string },
): Promise<{ output: unknown[]; human: string }> {
  switch (group) {
    case 'accounts': {
      const rows = await listAccounts(db);
      const billing = new Map((await listBilling(db)).map((b) => [b.accountId, b]));
      const signupTrials = await listSignupTrialEnds(db);
      // Stripe's trial while it runs; else the one sign-up gave, until a subscription replaces it.
      const trialEnd = (id: string): number | null => {
        const b = billing.get(id);
        if (b?.status === 'trialing') return b.trialEnd;
        return b?.status == null ? (signupTrials.get(id) ?? null) : null;
      };
      return {
        output: rows.map((a) => ({
          id: a.id,
          name: a.name,
          plan: a.plan,
          created_at: iso(a.createdAt),
          billing: billingStatus(billing.get(a.id)),
          trial_end: iso(trialEnd(a.id)),
        })),
        human: table(
          rows,
          [
            ['ID', (a) => a.id],
            ['PLAN', (a) => a.plan],
            ['BILLING', (a) => billingText(billing.get(a.id))],
            ['TRIAL ENDS (UTC)', (a) => when(trialEnd(a.id), '-')],
            ['CREATED (UTC)', (a) => when(a.createdAt, '')],
            ['NAME', (a) => a.name],
          ],
          'No accounts.',
        ),
      };
    }
    case 'branches': {
      const account = need(values.account, 'account', group);
      await needAccount(db, account);
      const rows = await listBranches(db, account);
      return {
        output: rows.map((b) => ({ id: b.id, account: b.accountId, name: b.name, timezone: b.timezone, created_at: iso(b.createdAt) })),
        human: table(
          rows,
          [
            ['ID', (b) => b.id],
            ['TIMEZONE', (b) => b.timezone],
            ['CREATED (UTC)', (b) => when(b.createdAt, '')],
            ['NAME', (b) => b.name],
          ],
          `No branches in account ${account}.`,
        ),
      };
    }
    case 'keys': {
      const branch = need(values.branch, 'branch', group);
      if ((await getBranch(db, branch)) === undefined) throw new AppError('not-found', `No branch ${branch}.`);
      const rows = await listApiKeys(db, branch);
      return {
        output: rows.map((k) => ({
          id: k.id,
          name: k.name,
          mode: k.mode,
          branch: k.branchId,
          last4: k.last4,
          created_at: iso(k.createdAt),
          last_used_at: iso(k.lastUsedAt),
          revoked_at: iso(k.revokedAt),
        })),
        human: table(
          rows,
          [
            ['ID', (k) => k.id],
            ['MODE', (k) => k.mode],
            ['LAST 4', (k) => `…${k.last4}`],
            ['CREATED (UTC)', (k) => when(k.createdAt, '')],
            ['LAST USED', (k) => when(k.lastUsedAt, 'never')],
            ['REVOKED', (k) => when(k.revokedAt, '-')],
            ['NAME', (k) => k.name ?? ''],
          ],
          `No keys for branch ${branch}.`,
        ),
      };
    }
    case 'users': {
      const account = need(values.account, 'account', group);
      await needAccount(db, account);
      const rows = await listUsers(db, account);
      return {
        output: rows.map((u) => ({ id: u.id, email: u.email, role: u.role, created_at: iso(u.createdAt) })),
        human: table(
          rows,
          [
            ['ID', (u) => u.id],
            ['ROLE', (u) => u.role],
            ['CREATED (UTC)', (u) => when(u.createdAt, '')],
            ['EMAIL', (u) => u.email],
          ],
          `No users in account ${account}.`,
        ),
      };
    }
  }
}

/**
 * An account's billing through Stripe (decision 0084) as the operator sees it: Stripe's
 * subscription status, `none` for a Stripe customer with no subscription, null for an account
 * Stripe does not bill (plans set with set-plan).
 */
function billingStatus(b: BillingRecord | undefined): { status: string; grace_until: string | null; cancel_at_period_end: boolean } | null {
  if (b === undefined) return null;
  return { status: b.status ?? 'none', grace_until: iso(b.graceUntil), cancel_at_period_end: b.cancelAtPeriodEnd };
}

function billingText(b: BillingRecord | undefined): string {
  const s = billingStatus(b);
  if (s === null) return '-';
  if (s.grace_until !== null) return `${s.status}, grace until ${when(b!.graceUntil, '')}`;
  if (s.cancel_at_period_end) return `${s.status}, ends ${when(b!.currentPeriodEnd, '')}`;
  return s.status;
}
