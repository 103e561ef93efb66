// /docs: the API reference, rendered in the browser by Scalar from /v1/openapi.json. Scalar's
// Fastify plugin serves its own script, so nothing is loaded from another host, and the page gets
// a strict CSP whose inline-script hashes are read from the page Scalar renders.
import { createHash } from 'node:crypto';
import type { FastifyInstance } from 'fastify';
import scalar from '@scalar/fastify-api-reference';
import { docsSecurityHeaders } from './pages/page-headers.ts';

const INLINE_SCRIPT = /<script\b(?![^>]*\bsrc=)[^>]*>([\s\S]*?)<\/script>/gi;

/**
 * The readybell name and bell above the sidebar, and its colours. Scalar's faintest grey (both
 * modes) and, in light mode, its method colours are brought to 4.5:1 on its backgrounds (WCAG 2.2
 * AA; axe found 16 nodes short of it: placeholders, server notes, POST labels, JSON literals),
 * the hues kept.
 */
const BRAND_CSS = `
.light-mode {
  --scalar-color-accent: #8a5a00;
  --scalar-color-2: #666666;
  --scalar-color-3: #6b6b6b;
  --scalar-color-green: #00774b;
  --scalar-color-red: #c70005;
  --scalar-color-orange: #b33d00;
  --scalar-color-yellow: #7a6100;
}
.dark-mode {
  --scalar-color-accent: #ffd60a;
  --scalar-color-3: #949494;
}
.t-doc__sidebar::before {
  content: "readybell"; display: block; padding: 18px 12px 10px 50px; font: 700 20px/28px var(--scalar-font);
  color: var(--scalar-color-1); background: url("/assets/icon.svg") no-repeat 14px 16px / 28px 28px;
}`;

/** Scalar's page names no language; screen readers need one to pronounce it (WCAG 3.1.1). */
const inEnglish = (html: string): string => html.replace(/<html(?![^>]*\blang=)/i, '<html lang="en"');

function inlineScriptHashes(html: string): string[] {
  return [...html.matchAll(INLINE_SCRIPT)].map((m) => `'sha256-${createHash('sha256').update(m[1]!).digest('base64')}'`);
}

export async function registerDocsUi(app: FastifyInstance): Promise<void> {
  // Its own scope, so the hook below sees only the reference's routes.
  await app.register(async (docs) => {
    let page: { rendered: string; html: string; headers: Record<string, string> } | undefined;
    docs.addHook('onSend', async (_req, reply, payload) => {
      const type = String(reply.getHeader('content-type') ?? '');
      // Scalar's script is 5 MB and changes only with the pinned plugin: a browser need not fetch it on every visit.
      if (type.startsWith('application/javascript'))
        reply.headers({ 'cache-control': 'public, max-age=3600', 'x-content-type-options': 'nosniff' });
      if (typeof payload !== 'string' || !type.startsWith('text/html')) return payload;
      if (page?.rendered !== payload) {
        const html = inEnglish(payload);
        page = { rendered: payload, html, headers: docsSecurityHeaders(inlineScriptHashes(html)) };
      }
      reply.headers(page.headers);
      return page.html;
    });
    await docs.register(scalar, {
      routePrefix: '/docs',
      configuration: {
        url: '/v1/openapi.json',
        pageTitle: 'readybell API reference',
        favicon: '/assets/icon.svg',
        customCss: BRAND_CSS,
        defaultHttpClient: { targetKey: 'shell', clientKey: 'curl' },
        authentication: { preferredSecurityScheme: 'apiKey', securitySchemes: { apiKey: { token: 'rk_test_YOUR_KEY' } } },
        documentDownloadType: 'json',
        // Nothing that reaches Scalar's own services: no web fonts, telemetry, AI agent, MCP or
        // developer toolbar; the reference is this readybell's, and the machine may be offline.
        withDefaultFonts: false,
        telemetry: false,
        agent: { disabled: true },
        mcp: { disabled: true },
        showDeveloperTools: 'never',
      },
    });
  });
}
