// Every process a test starts (a server, a worker, the CLI, a receiver in another language) is
// started through `owned(spawn(…))`, so none outlives the test file that started it: whatever ends that file (its last
// test, the exit watchdog (exit-watchdog.ts), a failed start, an uncaught error), the children still
// running get SIGKILL as it exits. A leaked server once kept `npm test` running for 30 minutes,
// holding the runner's pipe open after its file was done (issue 23).
import type { ChildProcess } from 'node:child_process';

const running = new Set<ChildProcess>();

process.once('exit', () => {
  for (const child of running) child.kill('SIGKILL');
});

/** Wraps child_process.spawn's result: the child is stopped when this test process exits. */
export function owned<T extends ChildProcess>(child: T): T {
  running.add(child);
  child.once('exit', () => running.delete(child));
  child.once('error', () => running.delete(child));
  return child;
}

/** What a Node child needs of this process's environment besides what the test gives: the compile cache test/run.ts set up. */
export function nodeEnv(): Record<string, string> {
  return process.env.NODE_COMPILE_CACHE ? { NODE_COMPILE_CACHE: process.env.NODE_COMPILE_CACHE } : {};
}

// How this machine reaches the registry: a proxy, and the certificate authority of one that
// re-signs TLS (this one does: without NODE_EXTRA_CA_CERTS every fetch fails with
// SELF_SIGNED_CERT_IN_CHAIN, and npm retries in silence until the test's budget runs out).
const NETWORK =
  /^(NODE_EXTRA_CA_CERTS|SSL_CERT_FILE|SSL_CERT_DIR|(HTTPS?|NO|ALL)_PROXY|(https?|no|all)_proxy|npm_config_(registry|cafile|ca|proxy|https_proxy|noproxy|strict_ssl))$/;

/** What a child that downloads (npm, a package manager of another language) needs of this process's environment to reach the network. */
export function networkEnv(): Record<string, string> {
  return Object.fromEntries(Object.entries(process.env).filter((e): e is [string, string] => NETWORK.test(e[0]) && e[1] !== undefined));
}
