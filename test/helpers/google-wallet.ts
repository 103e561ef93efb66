// A local fake of Google's OAuth token endpoint and the Wallet REST API (walletobjects/v1, the
// generic class and object calls readybell makes), with a service account key the test generates.
// The token endpoint checks the JWT-bearer assertion against the key's public half with
// node:crypto (not with the code under test); the API answers only the bearer tokens it issued.
// Every API request is recorded, so a test can assert what was (or was never) sent.
import type { Server } from 'node:http';
import { bodyServer } from './body-server.ts';
import { generateKeyPairSync, createVerify, type KeyObject } from 'node:crypto';

export type WalletRequest = { method: string; path: string; body: any };

/** The parts of a compact JWT, its RS256 signature checked with `publicKey` (throws when it does not verify). */
export function verifyRs256(jwt: string, publicKey: KeyObject): { header: any; payload: any } {
  const [h, p, s] = jwt.split('.');
  if (h === undefined || p === undefined || s === undefined) throw new Error('not a compact JWT');
  const header = JSON.parse(Buffer.from(h, 'base64url').toString());
  if (header.alg !== 'RS256') throw new Error(`alg ${header.alg}`);
  const ok = createVerify('RSA-SHA256').update(`${h}.${p}`).verify(publicKey, Buffer.from(s, 'base64url'));
  if (!ok) throw new Error('signature does not verify');
  return { header, payload: JSON.parse(Buffer.from(p, 'base64url').toString()) };
}

export class FakeGoogleWallet {
  static readonly ISSUER = '3388000000022123456';
  static readonly EMAIL = 'readybell-wallet@test-project.iam.gserviceaccount.com';
  readonly keys = generateKeyPairSync('rsa', { modulusLength: 2048 });
  url = '';
  readonly requests: WalletRequest[] = [];
  readonly objects = new Map<string, any>();
  readonly classes = new Set<string>();
  tokensIssued = 0;
  /** Answers the next addMessage that notifies with 429 (Google's QuotaExceeded). */
  refuseNotification = false;
  /** The token endpoint refuses every assertion (a revoked key). */
  refuseTokens = false;
  /** API requests get no answer until the fake closes (Google unreachable). */
  hang = false;
  private readonly hanging: Array<() => void> = [];
  private readonly tokens = new Set<string>();
  private server: Server | null = null;

  /** The key file as Google Cloud issues it (the fields readybell reads). */
  keyFile(): string {
    return JSON.stringify({
      type: 'service_account',
      client_email: FakeGoogleWallet.EMAIL,
      private_key: this.keys.privateKey.export({ type: 'pkcs8', format: 'pem' }),
      token_uri: `${this.url}/token`,
    });
  }

  env(): Record<string, string> {
    return {
      GOOGLE_WALLET_ISSUER_ID: FakeGoogleWallet.ISSUER,
      GOOGLE_WALLET_SERVICE_ACCOUNT: this.keyFile(),
      GOOGLE_WALLET_API_URL: this.url,
    };
  }

  /** The API's requests of one object (its inserts, patches and messages), oldest first. */
  requestsFor(objectId: string): WalletRequest[] {
    return this.requests.filter((r) => r.path.includes(encodeURIComponent(objectId)) || r.body?.id === objectId);
  }

  async start(): Promise<this> {
    this.server = bodyServer((req, text, res) => {
      const json = (status: number, body: unknown) =>
        res.writeHead(status, { 'content-type': 'application/json' }).end(JSON.stringify(body));
      if (req.url === '/token') return this.token(text, json);
      if (this.hang) return this.hanging.push(() => json(503, { error: { code: 503, message: 'closing' } }));
      const auth = req.headers.authorization ?? '';
      if (!auth.startsWith('Bearer ') || !this.tokens.has(auth.slice(7))) return json(401, { error: { code: 401, message: 'bad token' } });
      const body = text === '' ? null : JSON.parse(text);
      const path = (req.url ?? '').replace(/^\/walletobjects\/v1/, '');
      this.requests.push({ method: req.method ?? '', path, body });
      this.api(req.method ?? '', path, body, json);
    });
    await new Promise<void>((resolve) => this.server!.listen(0, '127.0.0.1', resolve));
    const address = this.server.address();
    this.url = `http://127.0.0.1:${typeof address === 'object' && address !== null ? address.port : 0}`;
    return this;
  }

  private token(form: string, json: (status: number, body: unknown) => unknown): unknown {
    const params = new URLSearchParams(form);
    try {
      if (this.refuseTokens) throw new Error('key revoked');
      if (params.get('grant_type') !== 'urn:ietf:params:oauth:grant-type:jwt-bearer') throw new Error('grant_type');
      const { payload } = verifyRs256(params.get('assertion') ?? '', this.keys.publicKey);
      if (payload.iss !== FakeGoogleWallet.EMAIL || payload.aud !== `${this.url}/token`) throw new Error('iss/aud');
      if (payload.scope !== 'https://www.googleapis.com/auth/wallet_object.issuer') throw new Error('scope');
    } catch (err) {
      return json(400, { error: 'invalid_grant', error_description: (err as Error).message });
    }
    const token = `ya29.fake-${++this.tokensIssued}`;
    this.tokens.add(token);
    json(200, { access_token: token, expires_in: 3599, token_type: 'Bearer' });
  }

  private api(method: string, path: string, body: any, json: (status: number, body: unknown) => unknown): unknown {
    if (method === 'POST' && path === '/genericClass') {
      if (this.classes.has(body.id)) return json(409, { error: { code: 409, message: 'exists' } });
      this.classes.add(body.id);
      return json(200, body);
    }
    if (method === 'POST' && path === '/genericObject') {
      if (!this.classes.has(body.classId)) return json(404, { error: { code: 404, message: 'no such class' } });
      if (this.objects.has(body.id)) return json(409, { error: { code: 409, message: 'exists' } });
      this.objects.set(body.id, { ...body, messages: [] });
      return json(200, body);
    }
    const m = /^\/genericObject\/([^/]+)(\/addMessage)?$/.exec(path);
    const id = m === null ? undefined : decodeURIComponent(m[1]!);
    const object = id === undefined ? undefined : this.objects.get(id);
    if (object === undefined) return json(404, { error: { code: 404, message: 'not found' } });
    if (method === 'PATCH' && m![2] === undefined) {
      Object.assign(object, body);
      return json(200, object);
    }
    if (method === 'POST' && m![2] !== undefined) {
      if (this.refuseNotification && body.message.messageType === 'TEXT_AND_NOTIFY') {
        this.refuseNotification = false;
        return json(429, { error: { code: 429, message: 'QuotaExceededException' } });
      }
      object.messages.push(body.message);
      return json(200, { resource: object });
    }
    return json(404, { error: { code: 404, message: 'no such method' } });
  }

  async close(): Promise<void> {
    for (const answer of this.hanging.splice(0)) answer();
    await new Promise<void>((resolve) => (this.server ? this.server.close(() => resolve()) : resolve()));
  }
}
