// Authentication and plans for every /v1 route, in one hook so no route can forget it.
// Keys are looked up by SHA-256 hash (an index seek; the hash compare happens inside the index, and
// the final equality check below is constant-time). The key itself is never logged: pino's
// redaction removes the Authorization header, and no message here includes it.
import { timingSafeEqual } from 'node:crypto';
import type { FastifyInstance, FastifyRequest } from 'fastify';
import { AppError } from '../../domain/errors.ts';
import { hashApiKey } from '../../domain/secrets.ts';
import type { Actor, Services } from '../../core/ctx.ts';
import type { Mode, Plan } from '../../core/tenancy.ts';
import { findKeyByHash, watchCredentials } from '../../actions/api-key-auth.ts';
import { channels } from '../../core/bus.ts';
import { KeyCache } from './key-cache.ts';
import { refuseModeHeader } from './mode-header.ts';

export type Auth = { actor: Actor; accountId: string; plan: Plan; branchId: string; mode: Mode; bucketKey: string };

declare module 'fastify' {
  interface FastifyRequest {
    auth: Auth | null;
  }
}

const BEARER = /^Bearer[ ]+(\S+)[ ]*$/i;
/** What readybell issues: the mode prefix, then 32 letters and digits (earlier keys: 32 base64url). */
const KEY_SHAPE = /^rk_(live|test)_[A-Za-z0-9_-]{20,128}$/i;
const KEY_PREFIX = /^rk_(live|test)_/i;

export type SessionAuthenticator = (req: FastifyRequest) => Promise<Auth | null>;

/**
 * `lastUsed` collects key ids seen since the last flush; writing last_used_at on every request
 * would turn every read into a write, so it is flushed in the background (precision: a minute).
 */
export function registerAuth(app: FastifyInstance, services: Services, lastUsed: Set<string>, session?: SessionAuthenticator): void {
  app.decorateRequest('auth', null);
  const cache = new KeyCache<KeyAuth>(services.config.apiKeyCacheMs);
  // A change committed here clears this node's cache before the request that made it is
  // answered; the bus tells the other nodes (credential-news.ts), and theirs clear this one.
  const offBus = services.bus.subscribe(channels.auth, () => cache.clear());
  // The CLI changes the embedded store from another process, without a bus to tell us.
  const credentials = watchCredentials(services, () => cache.clear());
  app.addHook('onClose', async () => {
    offBus();
    credentials.stop();
  });
  app.addHook('onRequest', async (req) => {
    const header = req.headers.authorization;
    if (header === undefined && session !== undefined) {
      const viaSession = await session(req);
      if (viaSession !== null) {
        req.auth = viaSession;
        return;
      }
    }
    if (header === undefined || header.trim() === '') {
      throw new AppError('unauthenticated', 'Send your API key as `Authorization: Bearer rk_test_…` (or rk_live_…).');
    }
    const key = BEARER.exec(header)?.[1];
    if (key === undefined || !KEY_PREFIX.test(key)) {
      throw new AppError('unauthenticated', 'The Authorization header is malformed; expected `Bearer rk_live_…` or `Bearer rk_test_…`.');
    }
    // A key cut short or run into other text when copied: the header is right, the key is not.
    if (!KEY_SHAPE.test(key)) throw new AppError('invalid-api-key', keyProblem(key));
    const hash = hashApiKey(key);
    const now = services.clock.now();
    const checking = credentials.check();
    if (checking !== undefined) await checking;
    let auth = cache.get(hash, now);
    if (auth === undefined) {
      auth = await verify(key, hash);
      cache.set(hash, auth, now);
    }
    if (auth.auth.plan === 'free') {
      throw new AppError('plan-required', 'The free plan does not include API access; the pro and business plans do.');
    }
    refuseModeHeader(req, auth.auth.mode);
    lastUsed.add(auth.keyId);
    req.auth = auth.auth;
  });

  async function verify(key: string, hash: string): Promise<KeyAuth> {
    const record = await findKeyByHash(services, hash);
    if (record === undefined || record.revokedAt !== null || !timingSafeEqual(Buffer.from(record.hash), Buffer.from(hash))) {
      throw new AppError('invalid-api-key', keyProblem(key));
    }
    if (!key.startsWith(`rk_${record.mode}_`)) throw new AppError('invalid-api-key', keyProblem(key));
    return {
      keyId: record.id,
      auth: {
        actor: { kind: 'api_key', keyId: record.id },
        accountId: record.accountId,
        plan: record.plan,
        branchId: record.branchId,
        mode: record.mode,
        bucketKey: `key:${record.id}:${record.branchId}`,
      },
    };
  }
}

/** Letters and digits after the mode prefix in a key readybell issues (and in the earlier base64url form). */
const KEY_BODY_LENGTH = 32;

/**
 * Why a token with a key's prefix is refused, said so that the integrator knows what to fix: a
 * key cut short or run into other text when pasted is the usual cause, and its length the tell.
 */
function keyProblem(key: string): string {
  const prefix = KEY_PREFIX.exec(key)![0];
  const rest = key.slice(prefix.length);
  const copied = 'Copy the whole key again from where it was created.';
  if (!/^[A-Za-z0-9_-]*$/.test(rest)) return `This is not an API key: after ${prefix} a key has only letters and digits. ${copied}`;
  if (rest.length !== KEY_BODY_LENGTH)
    return `This is not an API key: after ${prefix} a key has ${KEY_BODY_LENGTH} letters and digits, and this one has ${rest.length}. ${copied}`;
  return 'This API key is unknown or has been revoked.';
}

/** What a verified key resolves to; shared by every request with that key while it is cached. */
type KeyAuth = { keyId: string; auth: Auth };
