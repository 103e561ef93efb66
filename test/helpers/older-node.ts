// An installed Node older than the pinned 24 (the system's, on these machines), for the tests of
// what bin/readybell.js says and does there; null where there is none, and the tests skip.
import { execFileSync } from 'node:child_process';
import { existsSync } from 'node:fs';

/** An installed Node older than 24, and its version; null when there is none. */
export function olderNode(): { bin: string; version: string } | null {
  for (const bin of ['/usr/bin/node', '/usr/local/bin/node', '/bin/node']) {
    if (!existsSync(bin)) continue;
    const version = execFileSync(bin, ['--version'], { encoding: 'utf8' }).trim();
    if (Number(version.slice(1).split('.')[0]) < 24) return { bin, version };
  }
  return null;
}
