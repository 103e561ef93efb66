// The POS examples of examples/<language>/ as a test runs them: which toolchain each needs (and
// why it is missing, in words, so the test reports itself skipped instead of failing on a machine
// without it), how it is built once, and the commands that run its POS and its webhook receiver.
// The toolchains are Debian's packages, installed by .ci/run.
import { execFileSync, spawn } from 'node:child_process';
import { existsSync } from 'node:fs';
import path from 'node:path';
import { owned } from './child-processes.ts';

const ROOT = path.resolve(import.meta.dirname, '../..');
const JAVA_LIBS = '/usr/share/java';
const JACKSON = ['jackson-databind.jar', 'jackson-core.jar', 'jackson-annotations.jar'].map((jar) => path.join(JAVA_LIBS, jar));

export type Command = { command: string; args: string[]; cwd: string; env?: Record<string, string> };

export type Language = {
  name: string;
  /** Why it cannot run here (the test's skip reason), or false. */
  missing: string | false;
  /** Builds the example into `out` (once); then gives the commands of its POS and of its receiver. */
  build(out: string): Promise<{ pos(order: string): Command; receiver(port: number, inbox: string): Command }>;
};

/** Runs a command to its end within `timeoutMs` (then SIGKILL); what it printed, and its exit code. */
export function runBounded(
  { command, args, cwd, env = {} }: Command,
  extraEnv: Record<string, string>,
  timeoutMs: number,
): Promise<{ code: number | null; stdout: string; stderr: string; ms: number }> {
  const started = Date.now();
  return new Promise((resolve, reject) => {
    const child = owned(
      spawn(command, args, {
        cwd,
        env: { PATH: process.env.PATH ?? '', HOME: process.env.HOME ?? '', ...env, ...extraEnv },
        stdio: ['ignore', 'pipe', 'pipe'],
      }),
    );
    let stdout = '';
    let stderr = '';
    const timer = setTimeout(() => {
      stderr += `\n(killed after ${timeoutMs} ms)`;
      child.kill('SIGKILL');
    }, timeoutMs);
    child.stdout.on('data', (d: Buffer) => (stdout += d.toString()));
    child.stderr.on('data', (d: Buffer) => (stderr += d.toString()));
    child.on('error', (err) => {
      clearTimeout(timer);
      reject(err);
    });
    child.on('close', (code) => {
      clearTimeout(timer);
      resolve({ code, stdout, stderr, ms: Date.now() - started });
    });
  });
}

function onPath(command: string): boolean {
  return (process.env.PATH ?? '').split(path.delimiter).some((dir) => dir !== '' && existsSync(path.join(dir, command)));
}

function probe(command: string, args: string[]): boolean {
  try {
    execFileSync(command, args, { stdio: 'ignore', timeout: 20_000 });
    return true;
  } catch {
    return false;
  }
}

async function mustBuild(cmd: Command): Promise<void> {
  const r = await runBounded(cmd, {}, 180_000);
  if (r.code !== 0) throw new Error(`${cmd.command} ${cmd.args.join(' ')} failed (${r.code}):\n${r.stdout}${r.stderr}`);
}

const python: Language = {
  name: 'Python',
  missing: onPath('python3') ? false : 'python3 is not installed (Debian: apt-get install python3)',
  async build() {
    const cwd = path.join(ROOT, 'examples/python');
    return {
      pos: (order) => ({ command: 'python3', args: ['pos.py', order], cwd }),
      receiver: (port) => ({ command: 'python3', args: ['receiver.py'], cwd, env: { PORT: String(port) } }),
    };
  },
};

const go: Language = {
  name: 'Go',
  missing: onPath('go') ? false : 'go is not installed (Debian: apt-get install golang-go)',
  async build(out) {
    // The standard library only: nothing may be fetched. The build cache beside Node's compile
    // cache, so a second run builds nothing and HOME does not matter.
    const env = {
      GOPROXY: 'off',
      GOFLAGS: '-mod=readonly',
      CGO_ENABLED: '0',
      GOCACHE: process.env.GOCACHE ?? path.join(ROOT, 'node_modules/.cache/go-build'),
    };
    await mustBuild({
      command: 'go',
      args: ['build', '-o', out + path.sep, './pos', './receiver'],
      cwd: path.join(ROOT, 'examples/go'),
      env,
    });
    return {
      pos: (order) => ({ command: path.join(out, 'pos'), args: [order], cwd: out }),
      receiver: (port) => ({ command: path.join(out, 'receiver'), args: [], cwd: out, env: { PORT: String(port) } }),
    };
  },
};

const php: Language = {
  name: 'PHP',
  missing: !onPath('php')
    ? 'php is not installed (Debian: apt-get install php-cli php-curl)'
    : !probe('php', ['-r', 'exit(extension_loaded("curl") ? 0 : 1);'])
      ? "php's curl extension is not installed (Debian: apt-get install php-curl)"
      : false,
  async build() {
    const cwd = path.join(ROOT, 'examples/php');
    return {
      pos: (order) => ({ command: 'php', args: ['pos.php', order], cwd }),
      // PHP's built-in web server, one request at a time, as the example's README runs it.
      receiver: (port, inbox) => ({
        command: 'php',
        args: ['-S', `127.0.0.1:${port}`, 'receiver.php'],
        cwd,
        env: { READYBELL_INBOX: inbox },
      }),
    };
  },
};

const java: Language = {
  name: 'Java',
  missing: !onPath('javac')
    ? 'javac is not installed (Debian: apt-get install default-jdk-headless)'
    : !JACKSON.every((jar) => existsSync(jar))
      ? `Jackson is not installed in ${JAVA_LIBS} (Debian: apt-get install libjackson2-databind-java)`
      : false,
  async build(out) {
    const cwd = path.join(ROOT, 'examples/java');
    await mustBuild({ command: 'javac', args: ['-cp', JACKSON.join(':'), '-d', out, 'ReadybellPos.java', 'WebhookReceiver.java'], cwd });
    // A JVM that starts quickly and stays small: two of them share two cores with the suite.
    const jvm = ['-XX:TieredStopAtLevel=1', '-XX:+UseSerialGC', '-cp', [out, ...JACKSON].join(':')];
    return {
      pos: (order) => ({ command: 'java', args: [...jvm, 'ReadybellPos', order], cwd }),
      receiver: (port) => ({ command: 'java', args: [...jvm, 'WebhookReceiver'], cwd, env: { PORT: String(port) } }),
    };
  },
};

export const LANGUAGES: Language[] = [python, go, php, java];
