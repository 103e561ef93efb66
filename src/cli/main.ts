// The `readybell` command: the same configuration and store as the server. Every command that
// prints data accepts --json for scripts.
// First: tracing, when OTEL_* asks for it, must start before pg, ioredis and Fastify are loaded.
import '../telemetry/preload.ts';
import { parseArgs } from 'node:util';
import { loadConfig, ConfigError } from '../config.ts';
import type { Config } from '../core/config.ts';
import { openDb } from '../store/open-db.ts';
import { AppError } from '../domain/errors.ts';
import { runDemo } from './demo.ts';
import { createAccount, createApiKey, createBranch, createUser, assertPlan, resetUserPassword } from '../actions/provision.ts';
import { revokeApiKey } from '../store/credentials.ts';
import { onCredentialsChanged } from '../store/credential-changes.ts';
import { announceCredentialsChanged } from './announce.ts';
import { setAccountPlan } from '../store/tenancy.ts';
import { endSignupTrial } from '../store/billing.ts';
import type { Db } from '../core/db.ts';

const USAGE = `readybell — ticket pickup notifications

  readybell serve [--demo]                 run the service (npm start runs it with --demo)
  readybell worker                         run background work only (webhook deliveries, rings, expiry)
  readybell migrate                        apply database migrations
  readybell demo [--reset-password] [--json]  demo account, branch and owner; fresh keys (and password)
  readybell accounts create --name N --plan free|pro|business [--json]
  readybell accounts set-plan ACCOUNT_ID PLAN
  readybell accounts list [--json]           plans, billing status through Stripe and trial end
  readybell branches list --account ACCOUNT_ID [--json]
  readybell keys list --branch BRANCH_ID [--json]   ids, modes, last four characters, created, last used, revoked
  readybell users list --account ACCOUNT_ID [--json]
  readybell branches create --account ACCOUNT_ID --name N [--timezone TZ] [--json]
  readybell keys create --branch BRANCH_ID --mode test|live [--name N] [--json]
  readybell keys revoke KEY_ID
  readybell users create --account ACCOUNT_ID --email E --role owner|manager|staff [--password P] [--json]
  readybell users reset-password --email E [--password-stdin] [--json]  a new password (printed once, or read from stdin); ends the user's sessions
  readybell vapid [--rotate] [--json]     the Web Push (VAPID) public key; --rotate replaces a stored pair
  readybell backup FILE [--json]           a consistent copy of the embedded store, taken while it serves
  readybell restore FILE [--json]          put a backup into an empty DATA_DIR
  readybell insights rebuild --branch BRANCH_ID [--mode live|test] [--json]  recompute a branch's insights from its tickets
  readybell listen --forward-to URL [--api-key K] [--url U] [--events T,…]  a hosted readybell's events, signed, to a local receiver

Configuration comes from the environment (see README): DATA_DIR, DATABASE_URL, PORT, PUBLIC_URL, …`;

type Out = { json: boolean };

function print(out: Out, value: unknown, human: string): void {
  process.stdout.write(out.json ? JSON.stringify(value) + '\n' : human + '\n');
}

async function withDb<T>(config: Config, fn: (db: Db) => Promise<T>): Promise<T> {
  const db = openDb(config);
  let credentials = false;
  const off = onCredentialsChanged(() => (credentials = true));
  try {
    await db.migrate();
    const result = await fn(db);
    if (credentials) await announceCredentialsChanged(config);
    return result;
  } finally {
    off();
    await db.close();
  }
}

/** The password piped in (`… --password-stdin < file`, or typed), without its line end. */
async function firstLineOfStdin(): Promise<string> {
  let text = '';
  for await (const chunk of process.stdin) {
    text += String(chunk);
    if (text.includes('\n')) break;
  }
  return text.split(/\r?\n/)[0] ?? '';
}

function need(values: Record<string, unknown>, name: string): string {
  const v = values[name];
  if (typeof v !== 'string' || v === '') throw new AppError('validation-failed', `--${name} is required.`);
  return v;
}

async function main(argv: string[]): Promise<number> {
  // A client of a readybell elsewhere: its own options, no local configuration or store.
  if (argv[0] === 'listen') return (await import('./listen.ts')).runListen(argv.slice(1));
  const { values, positionals } = parseArgs({
    args: argv,
    allowPositionals: true,
    options: {
      json: { type: 'boolean', default: false },
      demo: { type: 'boolean', default: false },
      help: { type: 'boolean', short: 'h', default: false },
      name: { type: 'string' },
      plan: { type: 'string' },
      account: { type: 'string' },
      timezone: { type: 'string' },
      branch: { type: 'string' },
      mode: { type: 'string' },
      email: { type: 'string' },
      role: { type: 'string' },
      password: { type: 'string' },
      rotate: { type: 'boolean', default: false },
      'reset-password': { type: 'boolean', default: false },
      'password-stdin': { type: 'boolean', default: false },
    },
  });
  const [group, verb, ...rest] = positionals;
  if (values.help || group === undefined || group === 'help') {
    process.stdout.write(USAGE + '\n');
    return group === undefined && !values.help ? 1 : 0;
  }
  const config = loadConfig();
  const out: Out = { json: values.json === true };
  const now = Date.now();

  if (group === 'backup' || group === 'restore') {
    const { runBackupCommand } = await import('./backup.ts');
    const r = await runBackupCommand(config, group, verb === undefined ? [] : [verb, ...rest]);
    print(out, r.output, r.human);
    return 0;
  }
  if (verb === 'list' && (group === 'accounts' || group === 'branches' || group === 'keys' || group === 'users')) {
    const { runList } = await import('./lists.ts');
    const r = await withDb(config, (db) => runList(db, group, values));
    print(out, r.output, r.human);
    return 0;
  }

  switch (`${group} ${verb ?? ''}`.trim()) {
    // serve, worker and vapid load the server or web-push: imported on demand, so that the short
    // commands start in a fraction of the time.
    case 'serve':
      await (await import('./serve.ts')).serve(config, { demo: values.demo === true });
      return 0;
    case 'worker':
      await (await import('./worker.ts')).runWorker(config);
      return 0;
    case 'migrate': {
      const db = openDb(config);
      const applied = await db.migrate().finally(() => db.close());
      print(out, { applied }, applied.length > 0 ? `Applied ${applied.join(', ')}.` : 'Migrations are up to date.');
      return 0;
    }
    case 'demo': {
      const demo = await withDb(config, (db) => runDemo(db, config, { resetPassword: values['reset-password'] === true }));
      print(out, demo.output, demo.human);
      return 0;
    }
    case 'accounts create': {
      const a = await withDb(config, (db) =>
        db.write((tx) => createAccount(tx, { name: need(values, 'name'), plan: need(values, 'plan') }, now)),
      );
      print(out, { id: a.id, name: a.name, plan: a.plan }, `Created account ${a.id} (${a.name}, plan ${a.plan}).`);
      return 0;
    }
    case 'accounts set-plan': {
      const [id, plan] = rest;
      if (id === undefined || plan === undefined)
        throw new AppError('validation-failed', 'Usage: readybell accounts set-plan ACCOUNT_ID PLAN');
      // With Stripe, the subscription decides the plan (decision 0084): a plan set here would be
      // undone by the next event, or would give away what Stripe bills.
      if (config.stripe !== null)
        throw new AppError(
          'conflict',
          "Plans are Stripe's on this server (STRIPE_SECRET_KEY is set): the account's owner chooses one on the Billing screen of the staff page.",
        );
      // The operator's plan replaces a sign-up trial: its end must not undo it (decision 0084).
      const ok = await withDb(config, (db) =>
        db.write(async (tx) => {
          const set = await setAccountPlan(tx, id, assertPlan(plan));
          if (set) await endSignupTrial(tx, id);
          return set;
        }),
      );
      if (!ok) throw new AppError('not-found', `No account ${id}.`);
      print(out, { id, plan }, `Account ${id} is now on plan ${plan}.`);
      return 0;
    }
    case 'branches create': {
      const b = await withDb(config, (db) =>
        db.write((tx) =>
          createBranch(tx, { accountId: need(values, 'account'), name: need(values, 'name'), timezone: values.timezone }, now),
        ),
      );
      print(out, { id: b.id, name: b.name, timezone: b.timezone }, `Created branch ${b.id} (${b.name}, ${b.timezone}) with queue A.`);
      return 0;
    }
    case 'keys create': {
      const mode = need(values, 'mode');
      const k = await withDb(config, (db) =>
        db.write((tx) =>
          createApiKey(tx, { branchId: need(values, 'branch'), mode: mode as 'live' | 'test', name: values.name ?? null }, now),
        ),
      );
      print(out, k, `Created ${k.mode} key ${k.id} for ${k.branch}:\n  ${k.key}\nThis is the only time the full key is shown.`);
      return 0;
    }
    case 'keys revoke': {
      const [id] = rest;
      if (id === undefined) throw new AppError('validation-failed', 'Usage: readybell keys revoke KEY_ID');
      const ok = await withDb(config, (db) => db.write((tx) => revokeApiKey(tx, id, now)));
      if (!ok) throw new AppError('not-found', `No active key ${id}.`);
      print(out, { id, revoked: true }, `Revoked ${id}.`);
      return 0;
    }
    case 'users create': {
      const u = await withDb(config, (db) =>
        db.write((tx) =>
          createUser(
            tx,
            { accountId: need(values, 'account'), email: need(values, 'email'), role: need(values, 'role'), password: values.password },
            now,
          ),
        ),
      );
      print(out, u, `Created ${u.role} ${u.email} (${u.id}); password: ${u.password}`);
      return 0;
    }
    case 'users reset-password': {
      // From stdin, not an option: a password on the command line stays in the shell's history.
      const given = values['password-stdin'] === true ? await firstLineOfStdin() : undefined;
      const r = await withDb(config, (db) =>
        db.write((tx) => resetUserPassword(tx, { email: need(values, 'email'), password: given }, now)),
      );
      const ended = `signed out of ${r.sessionsEnded} session${r.sessionsEnded === 1 ? '' : 's'}`;
      print(
        out,
        given === undefined ? r : { id: r.id, email: r.email, sessionsEnded: r.sessionsEnded },
        given === undefined
          ? `New password for ${r.email}: ${r.password} (pass it on once); ${ended}.`
          : `Password set for ${r.email}; ${ended}.`,
      );
      return 0;
    }
    case 'insights rebuild': {
      const { runInsightsRebuild } = await import('./insights.ts');
      const r = await withDb(config, (db) => runInsightsRebuild(db, values, now));
      print(out, r.output, r.human);
      return 0;
    }
    case 'vapid': {
      const { runVapid } = await import('./vapid.ts');
      const v = await withDb(config, (db) => runVapid(db, config, { rotate: values.rotate === true }));
      print(out, v.output, v.human);
      return 0;
    }
    default:
      process.stderr.write(`Unknown command "${positionals.join(' ')}".\n\n${USAGE}\n`);
      return 2;
  }
}

main(process.argv.slice(2)).then(
  (code) => {
    if (code !== 0) process.exitCode = code;
  },
  (err: unknown) => {
    if (err instanceof ConfigError) process.stderr.write(err.message + '\n');
    else if (err instanceof AppError) process.stderr.write(`error: ${err.detail}\n`);
    else if ((err as { code?: string }).code === 'ERR_PARSE_ARGS_UNKNOWN_OPTION')
      process.stderr.write(`${(err as Error).message}\n\n${USAGE}\n`);
    else process.stderr.write(`error: ${(err as Error).message}\n`);
    process.exitCode = 1;
  },
);
