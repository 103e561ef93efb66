// Human-readable pages for problem types: every problem's `type` points here.
import type { FastifyInstance } from 'fastify';
import { Type } from 'typebox';
import { PROBLEM_CATALOGUE } from '../../contract/problem-catalogue.ts';
import type { ErrorCode } from '../../domain/errors.ts';
import { hidden, typed } from '../operation.ts';

const esc = (s: string): string => s.replace(/[&<>"']/g, (c) => `&#${c.charCodeAt(0)};`);
/** The catalogue's help marks code the Markdown way, `like this`; the page shows it as code. */
const withCode = (escaped: string): string => escaped.replace(/`([^`]+)`/g, '<code>$1</code>');

// Own members only: `toString` or `__proto__` are members of every object, not problem types.
const isProblemCode = (code: string): code is ErrorCode => Object.hasOwn(PROBLEM_CATALOGUE, code);

export function registerPublicPages(fastify: FastifyInstance): void {
  typed(fastify).get('/problems/:code', { schema: hidden({ params: Type.Object({ code: Type.String() }) }) }, async (req, reply) => {
    const entry = isProblemCode(req.params.code) ? PROBLEM_CATALOGUE[req.params.code] : undefined;
    if (entry === undefined) reply.code(404);
    const title = entry ? `${entry.status} ${entry.title}` : 'Unknown problem type';
    const help = entry ? entry.help : 'readybell does not define this problem type.';
    const list = Object.entries(PROBLEM_CATALOGUE)
      .map(([code, e]) => `<li><a href="/problems/${code}">${code}</a> (${e.status})</li>`)
      .join('');
    return reply
      .type('text/html; charset=utf-8')
      .header('Cache-Control', 'public, max-age=3600')
      .send(
        `<!doctype html><html lang="en"><head><meta charset="utf-8"><meta name="viewport" content="width=device-width,initial-scale=1"><title>${esc(title)} · readybell</title>` +
          `<style>body{font:16px/1.5 system-ui,sans-serif;max-width:40rem;margin:2rem auto;padding:0 1rem;color:#111}code{background:#eee;padding:0 .2em}</style></head>` +
          `<body><h1>${esc(title)}</h1><p><code>/problems/${esc(req.params.code)}</code></p><p>${withCode(esc(help))}</p>` +
          `<p>Every problem document also carries <code>request_id</code>; quote it when you contact support.</p><h2>All problem types</h2><ul>${list}</ul></body></html>`,
      );
  });
}
