// A fake APNs: an HTTP/2 TLS server that, like Apple's, refuses a connection without a client
// certificate from the expected chain, and records each push: the client certificate's subject,
// the path (/3/device/<token>), the apns-topic and the payload. A token can be told to answer 410
// (Unregistered) or 400 BadDeviceToken.
import http2 from 'node:http2';
import type { TLSSocket } from 'node:tls';

export type ApnsPush = { token: string; path: string; topic: string; pushType: string | undefined; body: string; clientSubject: string };

export class FakeApns {
  readonly pushes: ApnsPush[] = [];
  /** Requests refused before a push was recorded (no client certificate, wrong path or method). */
  readonly refused: string[] = [];
  private readonly answers = new Map<string, { status: number; reason: string }>();
  private readonly listeners: Array<(p: ApnsPush) => void> = [];
  private server: http2.Http2SecureServer | null = null;
  private readonly sessions = new Set<http2.ServerHttp2Session>();
  url = '';

  private readonly tls: { cert: string; key: string; ca: string };

  constructor(tls: { cert: string; key: string; ca: string }) {
    this.tls = tls;
  }

  async start(): Promise<this> {
    const server = http2.createSecureServer({ ...this.tls, requestCert: true, rejectUnauthorized: true });
    server.on('session', (session) => {
      this.sessions.add(session);
      session.on('close', () => this.sessions.delete(session));
    });
    server.on('stream', (stream, headers) => {
      const path = String(headers[':path'] ?? '');
      const socket = stream.session?.socket as TLSSocket | undefined;
      const subject = socket?.getPeerCertificate()?.subject;
      const m = /^\/3\/device\/([0-9a-fA-F]+)$/.exec(path);
      if (headers[':method'] !== 'POST' || m === null || subject === undefined) {
        this.refused.push(`${headers[':method']} ${path}`);
        stream.respond({ ':status': 405 });
        stream.end();
        return;
      }
      let body = '';
      stream.setEncoding('utf8');
      stream.on('data', (c: string) => {
        body += c;
      });
      stream.on('end', () => {
        const push: ApnsPush = {
          token: m[1]!,
          path,
          topic: String(headers['apns-topic'] ?? ''),
          pushType: headers['apns-push-type'] as string | undefined,
          body,
          clientSubject: `UID=${subject.UID ?? ''} CN=${subject.CN ?? ''}`,
        };
        this.pushes.push(push);
        for (const l of this.listeners) l(push);
        const answer = this.answers.get(push.token);
        if (answer === undefined) {
          stream.respond({ ':status': 200, 'apns-id': crypto.randomUUID() });
          stream.end();
        } else {
          stream.respond({ ':status': answer.status, 'content-type': 'application/json' });
          stream.end(JSON.stringify({ reason: answer.reason }));
        }
      });
    });
    await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
    this.server = server;
    this.url = `https://127.0.0.1:${(server.address() as { port: number }).port}`;
    return this;
  }

  /** The token answers 410 Unregistered (the device removed the pass) from now on. */
  unregister(token: string): void {
    this.answers.set(token, { status: 410, reason: 'Unregistered' });
  }

  pushesTo(token: string): ApnsPush[] {
    return this.pushes.filter((p) => p.token === token);
  }

  /** Calls `fn` on every push from now on (a device that fetches as soon as it is told). */
  onPush(fn: (p: ApnsPush) => void): void {
    this.listeners.push(fn);
  }

  async close(): Promise<void> {
    const server = this.server;
    if (server === null) return;
    this.server = null;
    // Sessions readybell keeps open would hold close() forever.
    for (const session of this.sessions) session.destroy();
    await new Promise<void>((resolve) => server.close(() => resolve()));
  }
}
