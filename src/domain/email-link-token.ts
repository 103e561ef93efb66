// The token of a link sent by email (verification, password reset): 32 random bytes in base64url,
// of which the store keeps only the SHA-256 (decision 0081), as for sessions and API keys.
import { createHash } from 'node:crypto';
import { randomToken } from './ids.ts';

export const EMAIL_LINK_TOKEN_SHAPE = /^[A-Za-z0-9_-]{43}$/;

export const newEmailLinkToken = (): string => randomToken(32);

export const hashEmailLinkToken = (token: string): string => createHash('sha256').update(`readybell email link\0${token}`).digest('hex');
