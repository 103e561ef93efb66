// The release as its container would run it, on a machine without a container engine: replays the
// Dockerfile's build stage on a clean copy of the build context (.dockerignore) in a temporary
// folder, copies the release into a separate image root as the final stage does, then runs that
// stage's CMD with a throw-away DATA_DIR and checks what an operator would: the HEALTHCHECK passes,
// a ticket can be created with a key made by the release's own CLI, its page links a built icon and script, the
// staff page is there, and SIGTERM ends the process with status 0. Nothing but production
// dependencies is installed and no node_modules lies above it, so a devDependency needed at run
// time fails here.
//
//   npm run release:smoke          (CI: the "release: build and smoke" stage)
//
// Runs on the Node 24 that runs this script (the `node` devDependency under npm run); the image has
// its own. RELEASE_SMOKE_KEEP=1 leaves the temporary folder for a look.
import { cpSync, existsSync, mkdirSync, mkdtempSync, readFileSync, rmSync } from 'node:fs';
import { spawn, spawnSync, type ChildProcess } from 'node:child_process';
import { createServer } from 'node:net';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { copyArgs, envPairs, execForm, readContext, readDockerfile, ROOT, type Stage } from './dockerfile.ts';

class SmokeFailure extends Error {}

function check(ok: boolean, what: string): asserts ok {
  if (!ok) throw new SmokeFailure(what);
}

/** Where a path of a stage's filesystem lives in this run: each stage gets a root of its own. */
function onHost(root: string, cwd: string, p: string): string {
  return path.join(root, path.posix.resolve(cwd, p));
}

// The PATH a container would have: this Node 24 first, none of npm run's node_modules/.bin.
const NODE_DIR = path.dirname(process.execPath);
const SYSTEM_PATH = (process.env.PATH ?? '/usr/bin:/bin')
  .split(path.delimiter)
  .filter((p) => !/node_modules[\\/]\.bin|node-gyp-bin/.test(p));
const PATH = [NODE_DIR, ...SYSTEM_PATH].join(path.delimiter);

/** The environment of the build steps: this one without what `npm run` added to it. */
function buildEnv(): NodeJS.ProcessEnv {
  const env: NodeJS.ProcessEnv = {};
  for (const [k, v] of Object.entries(process.env)) if (!/^(npm_|INIT_CWD$|NODE$)/.test(k)) env[k] = v;
  return { ...env, PATH };
}

function replayBuild(stage: Stage, root: string): void {
  const context = readContext();
  let cwd = '/';
  for (const { keyword, args } of stage.instructions) {
    if (keyword === 'WORKDIR') {
      cwd = path.posix.resolve(cwd, args);
      mkdirSync(onHost(root, '/', cwd), { recursive: true });
    } else if (keyword === 'COPY') {
      const { from, sources, dest } = copyArgs(args);
      check(from === null, `the build stage copies only from the context, not --from=${from}`);
      const names = sources.flatMap((s) => (s === '.' ? context : [s]));
      for (const name of names) {
        check(context.includes(name), `the build stage copies ${name}, which .dockerignore leaves out of the context`);
        cpSync(path.join(ROOT, name), path.join(onHost(root, cwd, dest), name), { recursive: true });
      }
    } else if (keyword === 'RUN') {
      console.log(`release-smoke: RUN ${args}`);
      const run = spawnSync('sh', ['-c', args], { cwd: onHost(root, '/', cwd), env: buildEnv(), stdio: 'inherit' });
      check(run.status === 0, `RUN ${args} exited with ${run.status ?? run.signal}`);
    } else {
      throw new SmokeFailure(`the build stage's ${keyword} is not replayed here; keep the Dockerfile to WORKDIR, COPY and RUN`);
    }
  }
}

type Runtime = { app: string; env: Record<string, string>; cmd: string[]; healthcheck: string[]; volume: string };

function replayFinal(stage: Stage, buildRoot: string, buildName: string, root: string): Runtime {
  let cwd = '/';
  const env: Record<string, string> = {};
  let cmd: string[] | null = null;
  let healthcheck: string[] | null = null;
  let volume: string | null = null;
  for (const { keyword, args } of stage.instructions) {
    if (keyword === 'ENV') Object.assign(env, envPairs(args));
    else if (keyword === 'WORKDIR') cwd = path.posix.resolve(cwd, args);
    else if (keyword === 'COPY') {
      const { from, sources, dest } = copyArgs(args);
      check(from === buildName, `the final stage copies only the release from the build stage, not ${args}`);
      for (const s of sources) cpSync(onHost(buildRoot, '/', s), onHost(root, cwd, dest), { recursive: true });
    } else if (keyword === 'RUN') {
      // Only the volume's mount point is made here (its owner matters in the image, not on this host).
      const m = /^install -d(?: -[og] \S+)* (\/\S+)$/.exec(args);
      check(m !== null, `the final stage only copies the release; it may not RUN ${args}`);
      mkdirSync(onHost(root, '/', m[1]!), { recursive: true });
    } else if (keyword === 'VOLUME') volume = args;
    else if (keyword === 'HEALTHCHECK') healthcheck = execForm(args);
    else if (keyword === 'CMD') cmd = execForm(args);
    else check(keyword === 'USER' || keyword === 'EXPOSE', `the final stage's ${keyword} is not replayed here`);
  }
  check(cmd !== null && healthcheck !== null && volume !== null, 'the final stage needs a CMD, a HEALTHCHECK and a VOLUME');
  check(env.DATA_DIR === volume, `DATA_DIR (${env.DATA_DIR}) must be the volume (${volume})`);
  return { app: onHost(root, '/', cwd), env, cmd, healthcheck, volume: onHost(root, '/', volume) };
}

/** No devDependency in the release, and no node_modules above it that could stand in for one. */
function checkProductionOnly(app: string): void {
  const lock = JSON.parse(readFileSync(path.join(app, 'package-lock.json'), 'utf8')) as { packages: Record<string, { dev?: boolean }> };
  const dev = Object.entries(lock.packages)
    .filter(([k, v]) => k !== '' && v.dev === true)
    .map(([k]) => k);
  const present = dev.filter((k) => existsSync(path.join(app, k)));
  check(present.length === 0, `devDependencies in the release: ${present.join(', ')}`);
  check(!existsSync(path.join(app, 'node_modules', 'vite')), 'vite in the release');
  for (let dir = path.dirname(app); dir !== path.dirname(dir); dir = path.dirname(dir)) {
    check(!existsSync(path.join(dir, 'node_modules')), `${dir}/node_modules would resolve packages the release lacks`);
  }
}

function freePort(): Promise<number> {
  return new Promise((resolve, reject) => {
    const srv = createServer()
      .listen(0, '127.0.0.1', () => {
        const { port } = srv.address() as { port: number };
        srv.close(() => resolve(port));
      })
      .on('error', reject);
  });
}

async function request(url: string, init: RequestInit = {}): Promise<{ status: number; type: string; body: string }> {
  const res = await fetch(url, { ...init, signal: AbortSignal.timeout(5000) });
  return { status: res.status, type: res.headers.get('content-type') ?? '', body: await res.text() };
}

async function smoke(rt: Runtime, log: { text: string }): Promise<void> {
  const port = await freePort();
  // From scratch, as in the image: nothing of this shell (a DATABASE_URL, a PORT) leaks in.
  const env = { PATH, ...rt.env, DATA_DIR: rt.volume, HOST: '127.0.0.1', PORT: String(port), LOG_LEVEL: 'warn' };
  const [bin, ...cmdArgs] = rt.cmd;
  check(bin !== undefined && cmdArgs.at(-1) === 'serve', `CMD should end in serve: ${JSON.stringify(rt.cmd)}`);
  const cliArgs = cmdArgs.slice(0, -1);
  const base = `http://127.0.0.1:${port}`;

  // A key made as an operator would, with the release's own CLI (docker compose exec … demo).
  const demo = spawnSync(bin, [...cliArgs, 'demo', '--json'], { cwd: rt.app, env, encoding: 'utf8' });
  check(demo.status === 0, `readybell demo exited with ${demo.status}: ${demo.stderr}`);
  const key = (JSON.parse(demo.stdout) as { keys: { test: string } }).keys.test;

  const started = performance.now();
  const server: ChildProcess = spawn(bin, cmdArgs, { cwd: rt.app, env, stdio: ['ignore', 'pipe', 'pipe'] });
  server.stdout!.on('data', (d: Buffer) => (log.text += d.toString()));
  server.stderr!.on('data', (d: Buffer) => (log.text += d.toString()));
  const exited = new Promise<{ code: number | null; signal: string | null }>((resolve) =>
    server.on('exit', (code, signal) => resolve({ code, signal })),
  );
  let running = true;
  void exited.then(() => (running = false));
  try {
    let ready = false;
    while (!ready && running && performance.now() - started < 20_000) {
      ready = await request(`${base}/readyz`).then(
        (r) => r.status === 200,
        () => false,
      );
      if (!ready) await new Promise((r) => setTimeout(r, 100));
    }
    check(ready, running ? '/readyz did not answer 200 within 20 s' : 'the server exited before it was ready');
    console.log(`release-smoke: ready in ${Math.round(performance.now() - started)} ms`);

    const health = spawnSync(rt.healthcheck[0]!, rt.healthcheck.slice(1), { cwd: rt.app, env, timeout: 5000 });
    check(health.status === 0, `the HEALTHCHECK failed on a ready server (${health.status})`);

    const created = await request(`${base}/v1/tickets`, {
      method: 'POST',
      headers: { authorization: `Bearer ${key}`, 'content-type': 'application/json', 'idempotency-key': 'release-smoke-1' },
      body: JSON.stringify({ external_ref: 'release-smoke' }),
    });
    check(created.status === 201, `POST /v1/tickets answered ${created.status}: ${created.body}`);
    const ticket = JSON.parse(created.body) as { id?: unknown; display_number?: unknown; url?: unknown };
    check(typeof ticket.id === 'string' && typeof ticket.display_number === 'string', `POST /v1/tickets gave no ticket: ${created.body}`);

    // The home-screen icons are built with the release (dist/web/icons), not read from the sources.
    const customer = await request(`${base}${new URL(String(ticket.url)).pathname}`);
    const touchIcon = /<link rel="apple-touch-icon" href="([^"]+)">/.exec(customer.body)?.[1];
    check(
      customer.status === 200 && touchIcon !== undefined,
      `the customer page answered ${customer.status} without an apple-touch-icon (icons not built)`,
    );
    const icon = await request(`${base}${touchIcon}`);
    check(icon.status === 200 && icon.type === 'image/png', `${touchIcon} answered ${icon.status} ${icon.type}`);
    // So is the page's script (dist/web/pages): without it the page would be served, but not live.
    const pageScript = /<script src="(\/assets\/customer\.js\?v=[^"]+)" defer>/.exec(customer.body)?.[1];
    check(pageScript !== undefined, 'the customer page links no built script (dist/web/pages not built)');
    const pageJs = await request(`${base}${pageScript}`);
    check(pageJs.status === 200 && pageJs.type.startsWith('text/javascript'), `${pageScript} answered ${pageJs.status}`);

    const staff = await request(`${base}/staff`);
    check(staff.status === 200 && staff.type.startsWith('text/html'), `/staff answered ${staff.status} ${staff.type}`);
    const script = /src="(\/staff\/assets\/[^"]+\.js)"/.exec(staff.body)?.[1];
    check(script !== undefined, '/staff links no built script');
    const asset = await request(`${base}${script}`);
    check(asset.status === 200 && asset.type.startsWith('text/javascript'), `${script} answered ${asset.status}`);
    console.log(
      `release-smoke: /readyz, HEALTHCHECK, POST /v1/tickets (${ticket.display_number}), its page's icon and script, and /staff answer`,
    );

    const stopAt = performance.now();
    server.kill('SIGTERM');
    const timeout = new Promise<'timeout'>((r) => setTimeout(() => r('timeout'), 20_000).unref());
    const end = await Promise.race([exited, timeout]);
    check(end !== 'timeout', 'the server was still running 20 s after SIGTERM');
    check(end.code === 0, `the server ended with ${end.code ?? end.signal} after SIGTERM, not 0`);
    console.log(`release-smoke: SIGTERM → exit 0 in ${Math.round(performance.now() - stopAt)} ms`);

    const after = spawnSync(rt.healthcheck[0]!, rt.healthcheck.slice(1), { cwd: rt.app, env, timeout: 5000 });
    check(after.status !== 0, 'the HEALTHCHECK passed with no server running');
  } finally {
    if (running) server.kill('SIGKILL');
  }
}

async function main(): Promise<number> {
  const stages = readDockerfile();
  const build = stages[0];
  const final = stages.at(-1);
  check(stages.length === 2 && build?.name != null && final !== undefined, 'the Dockerfile should have two stages, the first named');
  const tmp = mkdtempSync(path.join(tmpdir(), 'readybell-release-'));
  const log = { text: '' };
  try {
    const t0 = performance.now();
    replayBuild(build, path.join(tmp, 'build'));
    const rt = replayFinal(final, path.join(tmp, 'build'), build.name, path.join(tmp, 'image'));
    console.log(
      `release-smoke: built in ${((performance.now() - t0) / 1000).toFixed(1)} s; ${rt.app} holds the image's ${rt.cmd.join(' ')}`,
    );
    checkProductionOnly(rt.app);
    await smoke(rt, log);
    console.log('release-smoke: passed');
    return 0;
  } catch (err) {
    if (!(err instanceof SmokeFailure)) throw err;
    process.stderr.write(`release-smoke FAILED: ${err.message}\n`);
    if (log.text !== '') process.stderr.write(`--- server output ---\n${log.text.slice(-4000)}\n`);
    return 1;
  } finally {
    if (process.env.RELEASE_SMOKE_KEEP === '1') console.log(`release-smoke: left ${tmp}`);
    else rmSync(tmp, { recursive: true, force: true });
  }
}

process.exitCode = await main();
