// Security headers of the customer page and the board. Their URLs are secrets (the token), hence
// no-referrer (a link followed from the page must not leak it) and no-store (a shared computer's
// cache must not keep it). The CSP allows only this origin's scripts and the inlined stylesheet.
import type { FastifyReply } from 'fastify';

export function pageSecurityHeaders(styleHash: string): Record<string, string> {
  return {
    'content-security-policy': [
      "default-src 'none'",
      "script-src 'self'",
      `style-src ${styleHash}`,
      "img-src 'self' data:",
      "connect-src 'self'",
      "manifest-src 'self'",
      "worker-src 'self'",
      "base-uri 'none'",
      "form-action 'self'",
      "frame-ancestors 'none'",
    ].join('; '),
    'referrer-policy': 'no-referrer',
    'x-content-type-options': 'nosniff',
    'x-frame-options': 'DENY',
    'cache-control': 'no-store',
    'cross-origin-opener-policy': 'same-origin',
    'permissions-policy': 'camera=(), microphone=(), geolocation=(), screen-wake-lock=(self)',
  };
}

/** Headers for the SSE streams and small JSON answers of the pages. */
export const LIVE_HEADERS: Record<string, string> = {
  'referrer-policy': 'no-referrer',
  'x-content-type-options': 'nosniff',
  'cache-control': 'no-store',
};

export function sendHtml(reply: FastifyReply, status: number, html: string, styleHash: string): FastifyReply {
  return reply.code(status).headers(pageSecurityHeaders(styleHash)).type('text/html; charset=utf-8').send(html);
}

export const esc = (s: string): string => s.replace(/[&<>"']/g, (c) => `&#${c.charCodeAt(0)};`);

/**
 * The API reference (/docs): Scalar's script from this origin plus its one inline start-up script,
 * allowed by hash. Its styles are injected at run time and set on elements, so styles (only
 * styles) may be inline; no font, image or request leaves this origin.
 */
export function docsSecurityHeaders(inlineScriptHashes: readonly string[]): Record<string, string> {
  return {
    'content-security-policy': [
      "default-src 'none'",
      `script-src 'self' ${inlineScriptHashes.join(' ')}`.trim(),
      "style-src 'self' 'unsafe-inline'",
      "img-src 'self' data:",
      "font-src 'self' data:",
      "connect-src 'self'",
      "worker-src 'self' blob:",
      "base-uri 'none'",
      "form-action 'none'",
      "frame-ancestors 'none'",
    ].join('; '),
    'referrer-policy': 'no-referrer',
    'x-content-type-options': 'nosniff',
    'x-frame-options': 'DENY',
    'cross-origin-opener-policy': 'same-origin',
  };
}
