// Starts a real readybell on a random loopback port with its own store, and seeds tenants.
// Tests talk to it over HTTP, as an integrator would.
import { loadConfig } from '../../src/config.ts';
import { createApp, type App, type AppOptions } from '../../src/app.ts';
import type { Clock } from '../../src/core/clock.ts';
import type { DestinationStream } from 'pino';
import { createAccount, createApiKey, createBranch, createUser } from '../../src/actions/provision.ts';
import { createTestStore } from './store.ts';

export type Tenant = { accountId: string; branchId: string; testKey: string; liveKey: string; ownerEmail: string; ownerPassword: string };

export type Res = { status: number; headers: Headers; text: string; body: any };

export type TestApp = {
  app: App;
  url: string;
  tenant: Tenant;
  newTenant(opts?: { plan?: 'free' | 'pro' | 'business'; accountId?: string; timezone?: string }): Promise<Tenant>;
  request(
    method: string,
    path: string,
    opts?: { key?: string | null; body?: unknown; raw?: string; headers?: Record<string, string> },
  ): Promise<Res>;
  close(): Promise<void>;
};

let seq = 0;

/** What a test substitutes in the app it starts (createApp's options): resolvers, ringers, ring channels, event hooks. */
export type Substitutes = Pick<AppOptions, 'webhookLookup' | 'ringer' | 'ringChannels' | 'events'>;

export async function startTestApp(
  opts: {
    env?: Record<string, string>;
    clock?: Clock;
    workers?: boolean;
    logDestination?: DestinationStream;
    /** Rewrites the test database's address, to reach it through a pooler (PostgreSQL only). */
    databaseUrl?: (url: string) => string;
  } & Substitutes = {},
): Promise<TestApp> {
  // Migrated already where it can be: createApp migrates it anyway.
  const store = await createTestStore({ migrated: true });
  if (opts.databaseUrl !== undefined && store.env.DATABASE_URL !== undefined)
    store.env.DATABASE_URL = opts.databaseUrl(store.env.DATABASE_URL);
  // Load shedding off unless a test asks for it: a test file runs several apps in one process, so
  // one app starting (compiling its routes) reads as event-loop delay to every other app there.
  const config = loadConfig({
    LOG_LEVEL: 'silent',
    PORT: '0',
    PUBLIC_URL: 'http://localhost:3000',
    SHED_EVENT_LOOP_DELAY_MS: '0',
    ...store.env,
    ...opts.env,
  });
  const app = await createApp(config, {
    clock: opts.clock,
    logDestination: opts.logDestination,
    webhookLookup: opts.webhookLookup,
    ringer: opts.ringer,
    ringChannels: opts.ringChannels,
    events: opts.events,
  });
  await app.listen();
  const address = app.server.server.address();
  const url = typeof address === 'object' && address !== null ? `http://127.0.0.1:${address.port}` : '';
  if (opts.workers) app.startWorkers();

  const newTenant: TestApp['newTenant'] = async (t = {}) => {
    const now = Date.now();
    return app.services.db.write(async (tx) => {
      const accountId = t.accountId ?? (await createAccount(tx, { name: `Test ${++seq}`, plan: t.plan ?? 'pro' }, now)).id;
      const branch = await createBranch(tx, { accountId, name: `Branch ${seq}`, timezone: t.timezone ?? 'UTC' }, now);
      const testKey = (await createApiKey(tx, { branchId: branch.id, mode: 'test' }, now)).key;
      const liveKey = (await createApiKey(tx, { branchId: branch.id, mode: 'live' }, now)).key;
      const owner = await createUser(
        tx,
        { accountId, email: `owner${seq}-${branch.id}@example.test`, role: 'owner', password: 'correct horse battery' },
        now,
      );
      return { accountId, branchId: branch.id, testKey, liveKey, ownerEmail: owner.email, ownerPassword: owner.password };
    });
  };
  const tenant = await newTenant();

  const request: TestApp['request'] = async (method, path, o = {}) => {
    const headers: Record<string, string> = { ...o.headers };
    const key = o.key === undefined ? tenant.testKey : o.key;
    if (key !== null) headers.authorization = `Bearer ${key}`;
    let body: string | undefined = o.raw;
    if (o.body !== undefined) {
      body = JSON.stringify(o.body);
      headers['content-type'] ??= 'application/json';
    }
    const res = await fetch(url + path, { method, headers, body });
    const text = await res.text();
    let parsed: unknown;
    try {
      parsed = text === '' ? undefined : JSON.parse(text);
    } catch {
      parsed = undefined;
    }
    return { status: res.status, headers: res.headers, text, body: parsed };
  };

  return {
    app,
    url,
    tenant,
    newTenant,
    request,
    async close() {
      // A connection the client opened without a request yet (after an aborted stream, Node's
      // fetch opens one ahead) counts as active, so a graceful close would wait for its
      // keep-alive timeout: 70 s in staff-admin's stream test. The test is done with every
      // connection; after a moment for answers in flight, they go (issue 23).
      const cut = setTimeout(() => app.server.server.closeAllConnections(), 500);
      await app.close();
      clearTimeout(cut);
      await store.drop();
    },
  };
}
