// A TCP proxy a test can cut: every open connection is dropped at once and new ones are refused
// until it resumes, as when a laptop's Wi-Fi drops between it and a hosted service.
import net from 'node:net';
import { once } from 'node:events';

export type TcpProxy = { url: string; cut(): void; resume(): void; close(): Promise<void> };

export async function startTcpProxy(targetPort: number): Promise<TcpProxy> {
  const sockets = new Set<net.Socket>();
  let down = false;
  const server = net.createServer((client) => {
    if (down) {
      client.destroy();
      return;
    }
    const upstream = net.connect(targetPort, '127.0.0.1');
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
  return {
    url: `http://127.0.0.1:${(server.address() as net.AddressInfo).port}`,
    cut() {
      down = true;
      for (const s of sockets) s.destroy();
    },
    resume() {
      down = false;
    },
    async close() {
      for (const s of sockets) s.destroy();
      await new Promise<void>((resolve) => server.close(() => resolve()));
    },
  };
}
