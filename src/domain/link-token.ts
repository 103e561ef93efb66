// The tokens of emailed links (an invitation, an email change): 256 random bits in the link, only
// their SHA-256 in the store, so a leaked table or backup holds no usable link. A lookup by hash
// is an index equality; the token itself is never compared, so there is no timing to measure.
import { createHash } from 'node:crypto';
import { randomToken } from './ids.ts';

/** What a link's token looks like (32 bytes, base64url); anything else is refused before any lookup. */
export const LINK_TOKEN_SHAPE = /^[A-Za-z0-9_-]{43}$/;

export const newLinkToken = (): string => randomToken(32);

export const hashLinkToken = (token: string): string => createHash('sha256').update(token).digest('hex');
