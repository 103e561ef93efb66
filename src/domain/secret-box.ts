// Webhook signing secrets at rest. Signing needs the plaintext (an HMAC key cannot be hashed away
// like an API key), so the choice is plaintext or reversible encryption. With WEBHOOK_SECRETS_KEY
// set, secrets are sealed with AES-256-GCM and the endpoint id as associated data (a sealed value
// copied onto another endpoint's row does not open); without it they are stored as generated.
// Reading accepts both forms, so setting the key later needs no migration: each secret is sealed
// the next time it is written (creation or rotation). Decision: docs/decisions/0005.
import { createCipheriv, createDecipheriv, randomBytes } from 'node:crypto';

const SEALED = 'enc:v1:';

export class SecretBox {
  private readonly key: Buffer | null;

  constructor(key: Buffer | null) {
    if (key !== null && key.length !== 32) throw new RangeError('the webhook secrets key must be 32 bytes');
    this.key = key;
  }

  seal(plaintext: string, endpointId: string): string {
    if (this.key === null) return plaintext;
    const iv = randomBytes(12);
    const cipher = createCipheriv('aes-256-gcm', this.key, iv);
    cipher.setAAD(Buffer.from(endpointId, 'utf8'));
    const body = Buffer.concat([cipher.update(plaintext, 'utf8'), cipher.final()]);
    return `${SEALED}${iv.toString('base64url')}.${cipher.getAuthTag().toString('base64url')}.${body.toString('base64url')}`;
  }

  open(stored: string, endpointId: string): string {
    if (!stored.startsWith(SEALED)) return stored;
    if (this.key === null) throw new Error('a webhook secret is encrypted but WEBHOOK_SECRETS_KEY is not set');
    const [iv, tag, body] = stored.slice(SEALED.length).split('.');
    if (iv === undefined || tag === undefined || body === undefined) throw new Error('a sealed webhook secret is malformed');
    const decipher = createDecipheriv('aes-256-gcm', this.key, Buffer.from(iv, 'base64url'));
    decipher.setAAD(Buffer.from(endpointId, 'utf8'));
    decipher.setAuthTag(Buffer.from(tag, 'base64url'));
    return Buffer.concat([decipher.update(Buffer.from(body, 'base64url')), decipher.final()]).toString('utf8');
  }
}

/** Parses WEBHOOK_SECRETS_KEY: 32 bytes as 64 hex characters or base64/base64url. */
export function parseSecretsKey(raw: string): Buffer | null {
  const v = raw.trim();
  if (/^[0-9a-fA-F]{64}$/.test(v)) return Buffer.from(v, 'hex');
  if (/^[A-Za-z0-9+/_-]{43}=?$/.test(v)) {
    const b = Buffer.from(v.replace(/-/g, '+').replace(/_/g, '/'), 'base64');
    if (b.length === 32) return b;
  }
  return null;
}
