// A loopback port nothing listens on, for a server a test starts in a process of its own. Resolved
// only once the probe socket has closed, so the port is free when the caller binds it.
import { createServer } from 'node:net';

export function freePort(): Promise<number> {
  return new Promise((resolve, reject) => {
    const srv = createServer();
    srv.once('error', reject);
    srv.listen(0, '127.0.0.1', () => {
      const { port } = srv.address() as { port: number };
      srv.close(() => resolve(port));
    });
  });
}
