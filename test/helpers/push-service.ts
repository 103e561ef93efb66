// A push service for the tests, on 127.0.0.1, doing what a browser vendor's does with a ring:
// it checks the VAPID JWT (ES256 signature against the key in the header, which must be the
// service's public key; `aud` = its own origin; `exp` in the future and within 24 h; `sub`) and
// decrypts the RFC 8291 aes128gcm payload with the subscription's private key, as only the
// browser could. Subscriptions are made here like a browser makes them (P-256 key pair and a
// 16-byte auth secret from node:crypto).
import { createServer, type IncomingMessage, type ServerResponse, type Server } from 'node:http';
import { createDecipheriv, createECDH, createPublicKey, hkdfSync, randomBytes, verify, type ECDH } from 'node:crypto';

export type ReceivedPush = {
  subscription: string;
  headers: { ttl: string | undefined; urgency: string | undefined; topic: string | undefined };
  jwt: { aud: string; exp: number; sub: string };
  vapidKey: string;
  payload: any;
};

/**
 * How the service answers a subscription's pushes: a status; `hang`: accept the push (the
 * browser will get it) but hold the answer until released; `lose`: never accept it nor answer, as
 * if the request had not arrived (held until the service closes).
 */
export type PushReply = number | 'hang' | 'lose';

export type TestSubscription = {
  id: string;
  json: { endpoint: string; expirationTime: null; keys: { p256dh: string; auth: string } };
  reply: PushReply;
};

type Sub = TestSubscription & { ecdh: ECDH; auth: Buffer };

export class TestPushService {
  url = '';
  /** Pushes that passed every check, in arrival order. */
  readonly received: ReceivedPush[] = [];
  /** Why a push was refused (bad JWT, undecryptable body…): a test expects none. */
  readonly failures: string[] = [];
  /** Every request, accepted or not, per subscription id. */
  readonly requests = new Map<string, number>();
  private readonly subs = new Map<string, Sub>();
  private readonly hanging: Array<() => void> = [];
  private readonly lost: ServerResponse[] = [];
  private arrivals: Array<() => void> = [];
  private server: Server | null = null;
  /** The VAPID public key pushes must be signed with (the app's /push/vapid.json). */
  expectedVapidKey: string | null = null;

  async start(): Promise<this> {
    this.server = createServer((req, res) => void this.handle(req, res));
    await new Promise<void>((resolve) => this.server!.listen(0, '127.0.0.1', resolve));
    const addr = this.server.address();
    this.url = typeof addr === 'object' && addr !== null ? `http://127.0.0.1:${addr.port}` : '';
    return this;
  }

  /** A new browser subscription on this service. */
  subscribe(reply: PushReply = 201): TestSubscription {
    const ecdh = createECDH('prime256v1');
    ecdh.generateKeys();
    const auth = randomBytes(16);
    const id = randomBytes(8).toString('hex');
    const sub: Sub = {
      id,
      ecdh,
      auth,
      reply,
      json: {
        endpoint: `${this.url}/wpush/${id}`,
        expirationTime: null,
        keys: { p256dh: ecdh.getPublicKey().toString('base64url'), auth: auth.toString('base64url') },
      },
    };
    this.subs.set(id, sub);
    return sub;
  }

  setReply(sub: TestSubscription, reply: PushReply): void {
    this.subs.get(sub.id)!.reply = reply;
  }

  /** Lets every held request answer 201. */
  release(): void {
    for (const go of this.hanging.splice(0)) go();
  }

  /** Resolves once `n` requests for the subscription have arrived (answered or still held). */
  async waitForRequests(sub: TestSubscription, n = 1): Promise<void> {
    while ((this.requests.get(sub.id) ?? 0) < n) await new Promise<void>((resolve) => this.arrivals.push(resolve));
  }

  pushesFor(sub: TestSubscription): ReceivedPush[] {
    return this.received.filter((r) => r.subscription === sub.id);
  }

  async close(): Promise<void> {
    this.release();
    for (const res of this.lost.splice(0)) res.destroy();
    await new Promise<void>((resolve) => this.server?.close(() => resolve()) ?? resolve());
  }

  private async handle(req: IncomingMessage, res: ServerResponse): Promise<void> {
    const chunks: Buffer[] = [];
    for await (const c of req) chunks.push(c as Buffer);
    const body = Buffer.concat(chunks);
    const id = /^\/wpush\/([0-9a-f]+)$/.exec(req.url ?? '')?.[1] ?? '';
    const sub = this.subs.get(id);
    this.requests.set(id, (this.requests.get(id) ?? 0) + 1);
    for (const wake of this.arrivals.splice(0)) wake();
    const answer = (status: number): void => {
      res.writeHead(status, { 'content-type': 'text/plain' }).end(status === 201 ? '' : `status ${status}`);
    };
    if (req.method !== 'POST' || sub === undefined) return answer(404);
    if (sub.reply === 'lose') {
      this.lost.push(res);
      return;
    }
    try {
      this.received.push(this.check(req, body, sub));
    } catch (err) {
      this.failures.push((err as Error).message);
      return answer(400);
    }
    if (sub.reply === 'hang')
      return new Promise<void>((resolve) =>
        this.hanging.push(() => {
          answer(201);
          resolve();
        }),
      );
    answer(sub.reply);
  }

  private check(req: IncomingMessage, body: Buffer, sub: Sub): ReceivedPush {
    const auth = /^vapid t=([^,\s]+),\s*k=([A-Za-z0-9_-]+)$/.exec(String(req.headers.authorization ?? ''));
    if (auth === null) throw new Error(`Authorization is not "vapid t=…, k=…": ${req.headers.authorization}`);
    const [, jwt, k] = auth as unknown as [string, string, string];
    if (this.expectedVapidKey !== null && k !== this.expectedVapidKey) throw new Error("k is not the service's VAPID public key");
    const claims = verifyEs256Jwt(jwt, k);
    if (claims.aud !== this.url) throw new Error(`aud ${claims.aud} is not ${this.url}`);
    const now = Math.floor(Date.now() / 1000);
    if (!(claims.exp > now && claims.exp <= now + 24 * 3600)) throw new Error(`exp ${claims.exp} is not within the next 24 h`);
    if (!/^(mailto:|https:)/.test(claims.sub)) throw new Error(`sub ${claims.sub} is not mailto: or https:`);
    if (req.headers['content-encoding'] !== 'aes128gcm') throw new Error(`Content-Encoding ${req.headers['content-encoding']}`);
    const plaintext = decryptAes128gcm(body, sub.ecdh, sub.auth);
    return {
      subscription: sub.id,
      headers: { ttl: header(req, 'ttl'), urgency: header(req, 'urgency'), topic: header(req, 'topic') },
      jwt: claims,
      vapidKey: k,
      payload: JSON.parse(plaintext.toString('utf8')),
    };
  }
}

const header = (req: IncomingMessage, name: string): string | undefined => {
  const v = req.headers[name];
  return Array.isArray(v) ? v[0] : v;
};

function verifyEs256Jwt(jwt: string, publicKey: string): { aud: string; exp: number; sub: string } {
  const [h, p, s] = jwt.split('.');
  if (h === undefined || p === undefined || s === undefined) throw new Error('JWT is not three parts');
  const head = JSON.parse(Buffer.from(h, 'base64url').toString()) as { alg?: string };
  if (head.alg !== 'ES256') throw new Error(`JWT alg ${head.alg}`);
  const point = Buffer.from(publicKey, 'base64url');
  if (point.length !== 65 || point[0] !== 4) throw new Error('k is not an uncompressed P-256 point');
  const key = createPublicKey({
    key: { kty: 'EC', crv: 'P-256', x: point.subarray(1, 33).toString('base64url'), y: point.subarray(33).toString('base64url') },
    format: 'jwk',
  });
  const ok = verify('sha256', Buffer.from(`${h}.${p}`), { key, dsaEncoding: 'ieee-p1363' }, Buffer.from(s, 'base64url'));
  if (!ok) throw new Error('JWT signature does not verify against k');
  return JSON.parse(Buffer.from(p, 'base64url').toString()) as { aud: string; exp: number; sub: string };
}

/** RFC 8188 framing with RFC 8291 keys: salt(16) rs(4) idlen(1) keyid(=sender's public key) records. */
export function decryptAes128gcm(body: Buffer, ua: ECDH, authSecret: Buffer): Buffer {
  const salt = body.subarray(0, 16);
  const rs = body.readUInt32BE(16);
  const idlen = body[20]!;
  const asPublic = body.subarray(21, 21 + idlen);
  const record = body.subarray(21 + idlen);
  if (idlen !== 65) throw new Error("keyid is not the application server's P-256 public key");
  if (record.length > rs) throw new Error('more than one record; a ring fits in one');
  const shared = ua.computeSecret(asPublic);
  const keyInfo = Buffer.concat([Buffer.from('WebPush: info\0'), ua.getPublicKey(), asPublic]);
  const ikm = Buffer.from(hkdfSync('sha256', shared, authSecret, keyInfo, 32));
  const cek = Buffer.from(hkdfSync('sha256', ikm, salt, Buffer.from('Content-Encoding: aes128gcm\0'), 16));
  const nonce = Buffer.from(hkdfSync('sha256', ikm, salt, Buffer.from('Content-Encoding: nonce\0'), 12));
  const decipher = createDecipheriv('aes-128-gcm', cek, nonce);
  decipher.setAuthTag(record.subarray(record.length - 16));
  const padded = Buffer.concat([decipher.update(record.subarray(0, record.length - 16)), decipher.final()]);
  let end = padded.length - 1;
  while (end >= 0 && padded[end] === 0) end--;
  if (padded[end] !== 2) throw new Error('the last record does not end with the 0x02 delimiter');
  return padded.subarray(0, end);
}
