// Demo data for a first run. Only hashes of keys and passwords are stored, so every call issues
// a fresh test key, live key and owner password; earlier keys stay valid.
import type { Config } from '../config.ts';
import type { Db } from '../store/db.ts';
import { createAccount, createApiKey, createBranch, createUser } from '../actions/provision.ts';
import { findUserByEmail, setUserPassword } from '../store/credentials.ts';
import { listBranches } from '../store/tenancy.ts';
import { newPassword } from '../domain/secrets.ts';
import { hashPassword } from '../domain/password-hash.ts';

export const DEMO_OWNER_EMAIL = 'owner@demo.readybell.test';

export type DemoOutput = {
  account: { id: string };
  branch: { id: string; name: string };
  keys: { test: string; live: string };
  owner: { email: string; password: string };
  urls: { api: string; staff: string; docs: string };
};

export async function hasAnyAccount(db: Db): Promise<boolean> {
  return (await db.query('SELECT id FROM accounts LIMIT 1')).length > 0;
}

export async function runDemo(db: Db, config: Config): Promise<{ output: DemoOutput; human: string; created: boolean }> {
  const now = Date.now();
  const password = newPassword();
  const passwordHash = await hashPassword(password);
  const result = await db.write(async (tx) => {
    let owner = await findUserByEmail(tx, DEMO_OWNER_EMAIL);
    let created = false;
    if (owner === undefined) {
      const account = await createAccount(tx, { name: 'Demo Café', plan: 'pro' }, now);
      await createBranch(tx, { accountId: account.id, name: 'Demo Café — Main Street', timezone: 'Europe/Paris' }, now);
      await createUser(tx, { accountId: account.id, email: DEMO_OWNER_EMAIL, role: 'owner', password }, now);
      owner = (await findUserByEmail(tx, DEMO_OWNER_EMAIL))!;
      created = true;
    }
    await setUserPassword(tx, owner.id, passwordHash);
    const branch = (await listBranches(tx, owner.accountId))[0]!;
    const test = await createApiKey(tx, { branchId: branch.id, mode: 'test', name: 'demo test key' }, now);
    const live = await createApiKey(tx, { branchId: branch.id, mode: 'live', name: 'demo live key' }, now);
    return { accountId: owner.accountId, branch, test: test.key, live: live.key, created };
  });
  const output: DemoOutput = {
    account: { id: result.accountId },
    branch: { id: result.branch.id, name: result.branch.name },
    keys: { test: result.test, live: result.live },
    owner: { email: DEMO_OWNER_EMAIL, password },
    urls: { api: `${config.publicUrl}/v1`, staff: `${config.publicUrl}/staff`, docs: `${config.publicUrl}/docs` },
  };
  const human = [
    `Demo branch "${output.branch.name}" (${output.branch.id})`,
    `  API:        ${output.urls.api}`,
    `  Docs:       ${output.urls.docs}`,
    `  Staff page: ${output.urls.staff}  (${output.owner.email} / ${output.owner.password})`,
    `  Test key:   ${output.keys.test}`,
    `  Live key:   ${output.keys.live}`,
    '',
    `  Try it:     curl -X POST -H "Authorization: Bearer ${output.keys.test}" ${output.urls.api}/tickets`,
  ].join('\n');
  return { output, human, created: result.created };
}
