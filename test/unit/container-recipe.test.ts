// The container recipe as far as a machine without a container engine can check it: the Dockerfile
// only packages the release that CI builds and starts (scripts/release-smoke.ts replays it), and
// deploy/compose.yaml with deploy/nginx.conf would run as written: the image is built, every node
// has a valid configuration with the same secrets key and trusts exactly the compose network, and
// the TLS proxy tells the nodes who the client is on every location, live streams included.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { readFileSync, statSync } from 'node:fs';
import path from 'node:path';
import { parse } from 'yaml';
import { loadConfig } from '../../src/config.ts';
import { copyArgs, envPairs, execForm, readContext, readDockerfile, type Stage } from '../../scripts/dockerfile.ts';

const ROOT = path.resolve(import.meta.dirname, '../..');
const DEPLOY = path.join(ROOT, 'deploy');
const pkg = JSON.parse(readFileSync(path.join(ROOT, 'package.json'), 'utf8')) as { devDependencies: Record<string, string> };

type Service = {
  image?: string;
  build?: { context: string; dockerfile: string };
  command?: string[];
  environment?: Record<string, string>;
  networks?: unknown;
  ports?: string[];
  volumes?: string[];
};
const compose = parse(readFileSync(path.join(DEPLOY, 'compose.yaml'), 'utf8'), { merge: true }) as {
  services: Record<string, Service>;
  networks?: { default?: { ipam?: { config?: { subnet?: string }[] } } };
};
const nginx = readFileSync(path.join(DEPLOY, 'nginx.conf'), 'utf8');

const [build, final] = readDockerfile() as [Stage, Stage];
const args = (stage: Stage, keyword: string): string[] => stage.instructions.filter((i) => i.keyword === keyword).map((i) => i.args);
const imageEnv = Object.assign({}, ...args(final, 'ENV').map(envPairs)) as Record<string, string>;

/** Compose's `${VAR}`, `${VAR:-default}` and `${VAR:?error}` (which refuses to start). */
function interpolate(value: string, vars: Record<string, string>): string {
  return value.replace(/\$\{(\w+)(?::([?-])([^}]*))?\}/g, (_m, name: string, op: string | undefined, word: string | undefined) => {
    const v = vars[name];
    if (v !== undefined && v !== '') return v;
    if (op === '-') return word ?? '';
    throw new Error(`compose refuses to start: ${name}: ${word ?? 'not set'}`);
  });
}

const readybell = Object.entries(compose.services).filter(([, s]) => s.build !== undefined);
const subnet = compose.networks?.default?.ipam?.config?.[0]?.subnet;

test('the image only copies the release that scripts/release.sh builds, on the Node the tests run on', () => {
  assert.equal(readDockerfile().length, 2);
  for (const stage of [build, final]) assert.equal(stage.image, `node:${pkg.devDependencies.node}-slim`);

  const release = args(build, 'RUN')
    .map((r) => /^scripts\/release\.sh (\S+)$/.exec(r))
    .find((m) => m !== null);
  assert.ok(release, 'the build stage runs scripts/release.sh');
  const [workdir] = args(build, 'WORKDIR');
  const copies = args(final, 'COPY').map(copyArgs);
  assert.deepEqual(
    copies.map((c) => [c.from, c.sources]),
    [[build.name, [path.posix.resolve(workdir!, release[1]!)]]],
  );
  assert.deepEqual(
    args(final, 'RUN').filter((r) => !r.startsWith('install -d ')),
    [],
    'the final stage installs or builds nothing',
  );

  assert.deepEqual(args(final, 'USER'), ['node']);
  assert.deepEqual(args(final, 'VOLUME'), [imageEnv.DATA_DIR]);
  assert.equal(imageEnv.HOST, '0.0.0.0');
  // Exec form: node itself is PID 1 and gets SIGTERM (a shell would not pass it on).
  assert.deepEqual(args(final, 'CMD').map(execForm), [['node', 'src/cli/main.ts', 'serve']]);
  const [health] = args(final, 'HEALTHCHECK').map(execForm);
  assert.equal(health?.[0], 'node');
  assert.match(health.join(' '), /127\.0\.0\.1:.*\/readyz/);
});

test("the build context is an allow-list holding what the release script reads and none of this machine's state", () => {
  const context = readContext();
  for (const needed of ['package.json', 'package-lock.json', 'bin', 'src', 'web', 'scripts'])
    assert.ok(context.includes(needed), `${needed} is in the context`);
  for (const never of ['node_modules', 'dist', 'data', '.env', '.git', 'test'])
    assert.ok(!context.includes(never), `${never} is not in the context`);
});

test('compose builds the image for every readybell service, each a valid node with the same secrets key, trusting only the compose network', () => {
  assert.deepEqual(
    readybell.map(([name]) => name),
    ['node1', 'node2', 'node3', 'worker'],
  );
  assert.match(subnet ?? '', /^\d+\.\d+\.\d+\.\d+\/\d+$/, 'the default network has a fixed subnet');
  const key = 'a'.repeat(64);
  for (const [name, service] of readybell) {
    assert.equal(path.resolve(DEPLOY, service.build!.context, service.build!.dockerfile), path.join(ROOT, 'Dockerfile'), name);
    const env = service.environment ?? {};
    // Interpolated from the operator's environment: never a value in the file.
    assert.match(env.WEBHOOK_SECRETS_KEY ?? '', /^\$\{WEBHOOK_SECRETS_KEY:\?[^}]+\}$/, `${name}: WEBHOOK_SECRETS_KEY`);
    assert.equal(env.TRUST_PROXY, subnet, `${name}: TRUST_PROXY is the compose network`);
    assert.equal(service.networks, undefined, `${name} is on the default network only`);

    const resolved = Object.fromEntries(Object.entries(env).map(([k, v]) => [k, interpolate(String(v), { WEBHOOK_SECRETS_KEY: key })]));
    const config = loadConfig({ ...imageEnv, ...resolved });
    assert.equal(config.webhookSecretsKey?.toString('hex'), key, name);
    assert.deepEqual(config.trustProxy, [subnet], name);
    assert.equal(config.host, '0.0.0.0', name);
    assert.ok(config.databaseUrl !== null && config.redisUrl !== null, `${name} runs on the compose PostgreSQL and Redis`);
    assert.throws(() => interpolate(env.WEBHOOK_SECRETS_KEY!, {}), /compose refuses to start/);
  }
  // Nothing but the proxy is reachable from outside the network.
  assert.deepEqual(
    Object.entries(compose.services)
      .filter(([, s]) => s.ports !== undefined)
      .map(([name]) => name),
    ['lb'],
  );
});

type Location = { match: string; body: string };

function locations(): Location[] {
  assert.doesNotMatch(nginx, /location\s+\^~/, 'locationFor below does not model ^~ locations');
  return [...nginx.matchAll(/location\s+((?:=|~|~\*)\s+)?(\S+)\s*\{([^}]*)\}/g)].map((m) => ({
    match: `${(m[1] ?? '').trim()} ${m[2]}`.trim(),
    body: m[3]!,
  }));
}

/** The location nginx picks for a path: an exact match, else the first regex that matches, else the longest prefix. */
function locationFor(uri: string): Location {
  const all = locations();
  const exact = all.find((l) => l.match === `= ${uri}`);
  if (exact !== undefined) return exact;
  const regex = all.find((l) => l.match.startsWith('~ ') && new RegExp(l.match.slice(2)).test(uri));
  if (regex !== undefined) return regex;
  const prefixes = all.filter((l) => !/^[=~]/.test(l.match) && uri.startsWith(l.match)).sort((a, b) => b.match.length - a.match.length);
  assert.ok(prefixes[0], `a location serves ${uri}`);
  return prefixes[0];
}

test("the proxy terminates TLS with deploy/nginx.conf and forwards the client's address and scheme everywhere, live streams included", () => {
  const lb = compose.services.lb!;
  assert.match(lb.image ?? '', /^nginx:\d/);
  assert.ok(lb.volumes?.includes('./nginx.conf:/etc/nginx/nginx.conf:ro'), 'the proxy mounts deploy/nginx.conf');
  assert.deepEqual(lb.ports, ['443:443']);

  // Every serve node is behind the proxy, at its PORT.
  const upstream = /upstream readybell \{([^}]*)\}/.exec(nginx)?.[1] ?? '';
  const servers = [...upstream.matchAll(/server\s+([\w-]+):(\d+)/g)].map((m) => `${m[1]}:${m[2]}`);
  const serveNodes = readybell.filter(([, s]) => s.command === undefined).map(([name, s]) => `${name}:${s.environment?.PORT}`);
  assert.deepEqual(servers, serveNodes);

  // nginx refuses `listen 443 ssl` without a certificate: it is on a mounted folder, and the
  // entrypoint script that makes a self-signed one when none is mounted is executable (the image
  // skips scripts that are not).
  assert.match(nginx, /listen 443 ssl;/);
  const certs = [...nginx.matchAll(/ssl_certificate(?:_key)?\s+(\S+);/g)].map((m) => m[1]!);
  assert.equal(certs.length, 2);
  const mounts = (lb.volumes ?? []).map((v) => v.split(':')[1]);
  for (const cert of certs) assert.ok(mounts.includes(path.posix.dirname(cert)), `${cert} is on a mounted folder`);
  const script = (lb.volumes ?? []).map((v) => v.split(':')).find(([, target]) => target!.startsWith('/docker-entrypoint.d/'));
  assert.ok(script, 'the proxy mounts the certificate script into the entrypoint');
  assert.ok((statSync(path.join(DEPLOY, script[0]!)).mode & 0o111) !== 0, `${script[0]} is executable`);
  for (const cert of certs) assert.ok(readFileSync(path.join(DEPLOY, script[0]!), 'utf8').includes(path.posix.dirname(cert)));

  for (const uri of ['/v1/tickets', '/t/tok_x/events', '/board/brd_x/events', '/v1/stream', '/staff']) {
    const loc = locationFor(uri);
    assert.match(loc.body, /proxy_pass http:\/\/readybell;/, uri);
    assert.match(loc.body, /proxy_set_header X-Forwarded-For \$proxy_add_x_forwarded_for;/, `${uri} forwards the client's address`);
    assert.match(loc.body, /proxy_set_header X-Forwarded-Proto \$scheme;/, `${uri} forwards the scheme`);
  }
  for (const uri of ['/t/tok_x/events', '/board/brd_x/events', '/v1/stream']) {
    assert.match(locationFor(uri).body, /proxy_buffering off;/, `${uri} is not buffered`);
    assert.match(locationFor(uri).body, /proxy_read_timeout 1h;/, `${uri} may idle between heartbeats`);
  }
  const metrics = locationFor('/metrics');
  assert.doesNotMatch(metrics.body, /proxy_pass/);
  assert.match(metrics.body, /return 404;/);
});
