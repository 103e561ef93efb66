// A redis-server of the test's own, on a free loopback port, that the test may kill and start
// again on the same port (a Redis outage). Never the shared Redis: other test runs use it.
import { spawn, spawnSync, type ChildProcess } from 'node:child_process';
import { owned } from './child-processes.ts';
import { once } from 'node:events';
import { connect } from 'node:net';
import { freePort } from './free-port.ts';

export type OwnRedis = {
  url: string;
  port: number;
  /** Kills the server (SIGKILL: it keeps nothing, as a crashed Redis would). */
  kill(): Promise<void>;
  /** Starts it again on the same port; resolves once it answers PING. */
  start(): Promise<void>;
  /** SIGSTOP: a Redis that hangs, its connections open and unanswered. */
  pause(): void;
  /** SIGCONT after pause(). */
  resume(): void;
  close(): Promise<void>;
};

/** Whether redis-server can be run here. */
export function hasRedisServer(): boolean {
  return spawnSync('redis-server', ['--version'], { stdio: 'ignore' }).status === 0;
}

function answersPing(port: number): Promise<boolean> {
  return new Promise((resolve) => {
    const socket = connect(port, '127.0.0.1');
    const done = (ok: boolean) => {
      socket.destroy();
      resolve(ok);
    };
    socket.setTimeout(500, () => done(false));
    socket.once('error', () => done(false));
    socket.once('connect', () => socket.write('PING\r\n'));
    socket.once('data', (d) => done(d.toString().startsWith('+PONG')));
  });
}

export async function startOwnRedis(): Promise<OwnRedis> {
  const port = await freePort();
  let child: ChildProcess | null = null;
  const kill = async (): Promise<void> => {
    const c = child;
    child = null;
    if (c === null || c.exitCode !== null || c.signalCode !== null) return;
    c.kill('SIGKILL');
    await once(c, 'exit');
  };
  const start = async (): Promise<void> => {
    child = owned(
      spawn('redis-server', ['--port', String(port), '--bind', '127.0.0.1', '--save', '', '--appendonly', 'no'], { stdio: 'ignore' }),
    );
    for (let i = 0; i < 200; i++) {
      if (await answersPing(port)) return;
      await new Promise((r) => setTimeout(r, 25));
    }
    await kill();
    throw new Error(`redis-server on port ${port} did not answer within 5 s`);
  };
  await start();
  const signal = (s: NodeJS.Signals) => () => {
    child?.kill(s);
  };
  return { url: `redis://127.0.0.1:${port}`, port, kill, start, pause: signal('SIGSTOP'), resume: signal('SIGCONT'), close: kill };
}
