// The display board at /board/<token> (PRODUCT.md §11): the HTML, its live stream, and the
// board's confirmation of each call-out. A deleted board's link says so (410) instead of
// showing numbers that are no longer kept up to date.
import type { FastifyInstance, FastifyReply, FastifyRequest } from 'fastify';
import { Type, type Static } from 'typebox';
import { AppError, invalid } from '../../domain/errors.ts';
import { isId } from '../../domain/ids.ts';
import { findDisplayByLink } from '../../actions/displays.ts';
import type { Live } from '../../realtime/live.ts';
import { boardTexts } from '../../i18n/board-texts.ts';
import { openLiveStream } from '../../metrics.ts';
import { pickLanguage } from '../../i18n/language.ts';
import { attachBoardStream, loadBoardView } from '../../realtime/board-live.ts';
import { confirmBoardRing } from '../../realtime/ring-confirm.ts';
import { SSE_HEADERS, startSse } from '../../realtime/sse.ts';
import { boardMessageHtml, boardPageHtml } from '../pages/board-html.ts';
import { LIVE_HEADERS, sendHtml } from '../pages/page-headers.ts';
import type { LivePagesDeps } from './customer-page.ts';
import { linkLimiter, linkRefused } from './live-limits.ts';
import { hidden, typed } from '../operation.ts';

/** A display as its board's link finds it. */
type Display = NonNullable<Awaited<ReturnType<typeof findDisplayByLink>>>;
/** A branch as the live side reads it (settings cached for a few seconds). */
type Branch = NonNullable<Awaited<ReturnType<Live['data']['branch']>>>;

export const DISPLAY_TOKEN_PATTERN = '^[A-Za-z0-9_-]{32}$';
const TOKEN = new RegExp(DISPLAY_TOKEN_PATTERN);

// A malformed token is answered by find() (rate limited, the board's 404), and the ack's fields
// are checked where they are read, with the board's own messages.
const Link = Type.Object({ token: Type.String() });
const board = { schema: hidden({ params: Link }) };
const ack = {
  schema: hidden({ params: Link, body: Type.Object({ ring_id: Type.Optional(Type.Unknown()), spoke: Type.Optional(Type.Unknown()) }) }),
};

export function registerBoardPage(fastify: FastifyInstance, deps: LivePagesDeps): void {
  const app = typed(fastify);
  const { services, live, assets } = deps;
  const { clock } = services;
  const limit = linkLimiter(deps.limiter, clock, services.metrics);
  const cssHash = assets.styleHash(assets.boardCss);

  async function find(
    req: FastifyRequest & { params: Static<typeof Link> },
    reply: FastifyReply,
    html: boolean,
  ): Promise<{ display: Display; branch: Branch; base: string } | null> {
    const { token } = req.params;
    const lang = pickLanguage(req.headers['accept-language'], 'en');
    const t = boardTexts(lang);
    const display = TOKEN.test(token) ? await findDisplayByLink(services, token) : undefined;
    const branch = display && (await live.data.branch(display.branchId));
    if (display === undefined || branch === undefined) {
      if (!(await limit.unknown(req, reply))) throw linkRefused(reply, 'Too many requests for this board; retry shortly.');
      if (html) {
        sendHtml(reply, 404, boardMessageHtml(lang, t.t('unknown.title'), t.t('unknown.body'), assets), cssHash);
        return null;
      }
      throw new AppError('not-found', 'No such board.');
    }
    if (!(await limit.found(reply, `b:${token}`))) throw linkRefused(reply, 'Too many requests for this board; retry shortly.');
    if (display.deletedAt !== null) {
      if (html) {
        sendHtml(reply, 410, boardMessageHtml(lang, t.t('removed.title'), t.t('removed.body'), assets), cssHash);
        return null;
      }
      throw new AppError('not-found', 'This board was removed.');
    }
    return { display, branch, base: `/board/${token}` };
  }

  app.get('/board/:token', board, async (req, reply) => {
    const found = await find(req, reply, true);
    if (found === null) return reply;
    const view = await loadBoardView(live, found.display, found.branch);
    return sendHtml(reply, 200, boardPageHtml(view, found.base, assets, live.hub.heartbeatMs, clock.now()), cssHash);
  });

  app.get('/board/:token/events', board, async (req, reply) => {
    const found = await find(req, reply, false);
    if (found === null) return reply;
    // HEAD asks for GET's headers; a hijacked response to it would never send them.
    if (req.method === 'HEAD') return reply.headers({ ...SSE_HEADERS, ...LIVE_HEADERS }).send();
    reply.hijack();
    const stream = startSse(reply.raw, { ...LIVE_HEADERS, 'request-id': String(req.id) }, 2000);
    stream.onClose(openLiveStream(services.metrics, 'board'));
    await attachBoardStream(live, found.display, found.branch, stream).catch((err: unknown) => {
      req.log.warn({ err }, 'board stream failed to start');
      stream.close();
    });
  });

  app.post('/board/:token/ack', ack, async (req, reply) => {
    const found = await find(req, reply, false);
    if (found === null) return reply;
    const body = req.body ?? {};
    if (typeof body.ring_id !== 'string' || !isId('ring', body.ring_id)) throw invalid('/ring_id', 'ring_id must be the id of a ring.');
    if (typeof body.spoke !== 'boolean') throw invalid('/spoke', 'spoke must be true or false.');
    await confirmBoardRing(services, found.display, body.ring_id, body.spoke);
    return reply.code(204).headers(LIVE_HEADERS).send();
  });
}
