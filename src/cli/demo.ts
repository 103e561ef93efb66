// Demo data for a first run. Only hashes of keys and passwords are stored, so every call issues a
// fresh test key and live key (earlier keys stay valid). The owner's password is set when the
// account is created and otherwise only on request (--reset-password), which also signs the owner
// out everywhere; the output says which of these happened.
import type { Config } from '../core/config.ts';
import type { Db } from '../core/db.ts';
import { createAccount, createApiKey, createBranch, createUser } from '../actions/provision.ts';
import { findUserByEmail, setUserPassword } from '../store/credentials.ts';
import { revokeUserSessions } from '../store/sessions.ts';
import { getServiceSetting, replaceServiceSetting } from '../store/service-settings.ts';
import { listBranches } from '../store/tenancy.ts';
import { newPassword } from '../domain/secrets.ts';
import { hashPassword } from '../domain/password-hash.ts';

export const DEMO_OWNER_EMAIL = 'owner@demo.readybell.test';
const SERVED_AT = 'public_url';

export type DemoOutput = {
  account: { id: string };
  branch: { id: string; name: string };
  keys: { test: string; live: string };
  /** `password` is null when this call left it unchanged. */
  owner: { email: string; password: string | null };
  urls: { api: string; staff: string; docs: string };
  changes: string[];
};

/** `serve` records the URL it answers at, for a `readybell demo` run from a shell without its environment. */
export async function recordPublicUrl(db: Db, config: Config): Promise<void> {
  await db.write((tx) => replaceServiceSetting(tx, SERVED_AT, config.publicUrl, Date.now()));
}

// A PUBLIC_URL given to this command wins. Otherwise the URL the server last started on this store
// recorded: an operator's second shell rarely has the server's PUBLIC_URL or PORT.
async function publicUrl(db: Db, config: Config): Promise<string> {
  const derived = config.publicUrl === `http://localhost:${config.port}`;
  return (derived ? await getServiceSetting(db, SERVED_AT) : undefined) ?? config.publicUrl;
}

export async function runDemo(
  db: Db,
  config: Config,
  opts: { resetPassword?: boolean } = {},
): Promise<{ output: DemoOutput; human: string; created: boolean }> {
  const now = Date.now();
  const existing = await findUserByEmail(db, DEMO_OWNER_EMAIL);
  const password = existing === undefined || opts.resetPassword === true ? newPassword() : null;
  const passwordHash = password === null ? null : await hashPassword(password);
  const result = await db.write(async (tx) => {
    let owner = await findUserByEmail(tx, DEMO_OWNER_EMAIL);
    const changes: string[] = [];
    if (owner === undefined) {
      if (password === null) throw new Error('the demo owner vanished while its keys were being made; run the command again');
      const account = await createAccount(tx, { name: 'Demo Café', plan: 'pro' }, now);
      await createBranch(tx, { accountId: account.id, name: 'Demo Café — Main Street', timezone: 'Europe/Paris' }, now);
      await createUser(tx, { accountId: account.id, email: DEMO_OWNER_EMAIL, role: 'owner', password }, now);
      owner = (await findUserByEmail(tx, DEMO_OWNER_EMAIL))!;
      changes.push('Created the demo account (plan pro), its branch with queue A, and its owner.');
    } else if (passwordHash !== null) {
      await setUserPassword(tx, owner.id, passwordHash);
      const ended = await revokeUserSessions(tx, owner.id, now);
      changes.push(`Set a new owner password; signed the owner out of ${ended} session${ended === 1 ? '' : 's'}.`);
    } else {
      changes.push(
        "Left the owner's password and sessions alone (--reset-password sets a new password and signs the owner out everywhere).",
      );
    }
    const branch = (await listBranches(tx, owner.accountId))[0]!;
    const test = await createApiKey(tx, { branchId: branch.id, mode: 'test', name: 'demo test key' }, now);
    const live = await createApiKey(tx, { branchId: branch.id, mode: 'live', name: 'demo live key' }, now);
    changes.push('Issued a new test key and live key; earlier keys keep working.');
    return { accountId: owner.accountId, branch, test: test.key, live: live.key, created: existing === undefined, changes };
  });
  const base = await publicUrl(db, config);
  const output: DemoOutput = {
    account: { id: result.accountId },
    branch: { id: result.branch.id, name: result.branch.name },
    keys: { test: result.test, live: result.live },
    owner: { email: DEMO_OWNER_EMAIL, password },
    urls: { api: `${base}/v1`, staff: `${base}/staff`, docs: `${base}/docs` },
    changes: result.changes,
  };
  const signIn = password === null ? `${output.owner.email}, password unchanged` : `${output.owner.email} / ${password}`;
  const human = [
    `Demo branch "${output.branch.name}" (${output.branch.id})`,
    `  API:        ${output.urls.api}`,
    `  Docs:       ${output.urls.docs}`,
    // The staff link opens on test data: what the test key below makes (a Live board would be empty).
    `  Staff page: ${output.urls.staff}/?mode=test  (${signIn}; opens on Test, where the test key's tickets are)`,
    `  Test key:   ${output.keys.test}`,
    `  Live key:   ${output.keys.live}`,
    '',
    `  Try it:     curl -X POST -H "Authorization: Bearer ${output.keys.test}" ${output.urls.api}/tickets`,
    `              then open the answer's "url" in a browser and mark the ticket ready on the staff page:`,
    '              the page lights up and chimes (the README quick start does it all with curl)',
    '',
    ...output.changes.map((c) => `  ${c}`),
  ].join('\n');
  return { output, human, created: result.created };
}
