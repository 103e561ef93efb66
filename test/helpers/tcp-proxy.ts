// A TCP proxy a test can cut: every open connection is dropped at once and new ones are refused
// until it resumes, as when a laptop's Wi-Fi drops between it and a hosted service. `repoint`
// sends new connections to another port and drops the open ones, as a virtual IP or a DNS name
// moved to a promoted standby does.
import net from 'node:net';
import { once } from 'node:events';

export type TcpProxy = { url: string; port: number; cut(): void; resume(): void; repoint(port: number): void; close(): Promise<void> };

export async function startTcpProxy(targetPort: number): Promise<TcpProxy> {
  const sockets = new Set<net.Socket>();
  let down = false;
  let target = targetPort;
  const server = net.createServer((client) => {
    if (down) {
      client.destroy();
      return;
    }
    const upstream = net.connect(target, '127.0.0.1');
    for (const [a, b] of [
      [client, upstream],
      [upstream, client],
    ] as const) {
      sockets.add(a);
      a.on('close', () => {
        sockets.delete(a);
        b.destroy();
      });
      a.on('error', () => a.destroy());
      a.pipe(b);
    }
  });
  server.listen(0, '127.0.0.1');
  await once(server, 'listening');
  const port = (server.address() as net.AddressInfo).port;
  return {
    url: `http://127.0.0.1:${port}`,
    port,
    cut() {
      down = true;
      for (const s of sockets) s.destroy();
    },
    resume() {
      down = false;
    },
    repoint(to) {
      target = to;
      for (const s of sockets) s.destroy();
    },
    async close() {
      for (const s of sockets) s.destroy();
      await new Promise<void>((resolve) => server.close(() => resolve()));
    },
  };
}
