// Many cheap SSE clients for the live benchmarks: one raw HTTP request per stream, a minimal
// parser that only looks for the events the bench waits on, and the server's memory from /proc.
import http from 'node:http';
import { readFileSync, readdirSync, readlinkSync } from 'node:fs';

export type BenchStream = {
  /** resolves with the first `snapshot` */
  opened: Promise<void>;
  /** called with the ring id of each `ring` event, at the moment its bytes arrive */
  onRing: ((ringId: string, at: number) => void) | null;
  close(): void;
};

const agent = new http.Agent({ keepAlive: false, maxSockets: Infinity });

export function openStream(url: string): BenchStream {
  let resolveOpen!: () => void;
  let rejectOpen!: (e: Error) => void;
  const opened = new Promise<void>((res, rej) => {
    resolveOpen = res;
    rejectOpen = rej;
  });
  const stream: BenchStream = { opened, onRing: null, close: () => req.destroy() };
  const req = http.get(url, { agent, headers: { accept: 'text/event-stream' } }, (res) => {
    if (res.statusCode !== 200) {
      rejectOpen(new Error(`${url} answered ${res.statusCode}`));
      res.resume();
      return;
    }
    let buffer = '';
    res.setEncoding('utf8');
    res.on('data', (chunk: string) => {
      const at = performance.now();
      buffer += chunk;
      let cut: number;
      while ((cut = buffer.indexOf('\n\n')) !== -1) {
        const block = buffer.slice(0, cut);
        buffer = buffer.slice(cut + 2);
        if (block.includes('event: snapshot')) resolveOpen();
        else if (block.includes('event: ring')) {
          const m = /"ring_id":"([^"]+)"/.exec(block);
          if (m !== null) stream.onRing?.(m[1]!, at);
        }
      }
    });
    res.on('error', () => {});
  });
  req.on('error', (err) => rejectOpen(err));
  return stream;
}

/** The pid listening on `port` on this machine (Linux /proc), or null where that cannot be read. */
export function pidListeningOn(port: number): number | null {
  try {
    const hex = port.toString(16).toUpperCase().padStart(4, '0');
    const inodes = new Set<string>();
    for (const file of ['/proc/net/tcp', '/proc/net/tcp6']) {
      for (const line of readFileSync(file, 'utf8').split('\n').slice(1)) {
        const f = line.trim().split(/\s+/);
        if (f.length > 9 && f[1]!.endsWith(`:${hex}`) && f[3] === '0A') inodes.add(f[9]!);
      }
    }
    for (const pid of readdirSync('/proc').filter((d) => /^\d+$/.test(d))) {
      let fds: string[];
      try {
        fds = readdirSync(`/proc/${pid}/fd`);
      } catch {
        continue;
      }
      for (const fd of fds) {
        try {
          const m = /^socket:\[(\d+)\]$/.exec(readlinkSync(`/proc/${pid}/fd/${fd}`));
          if (m !== null && inodes.has(m[1]!)) return Number(pid);
        } catch {
          // gone meanwhile
        }
      }
    }
  } catch {
    return null;
  }
  return null;
}

/** Resident memory of a process in bytes (VmRSS). */
export function rssOf(pid: number): number {
  const m = /VmRSS:\s+(\d+) kB/.exec(readFileSync(`/proc/${pid}/status`, 'utf8'));
  if (m === null) throw new Error(`no VmRSS for pid ${pid}`);
  return Number(m[1]) * 1024;
}
