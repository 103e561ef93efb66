// The customer page at /t/<token> (PRODUCT.md §10): the HTML, its live stream, its manifest,
// the two buttons, "text me", and the ring confirmation. The token is the only credential;
// nothing here reveals more than the ticket's own number and state, its queue position, and the
// customer's phone number masked.
import { write } from '../../write/idempotent-write.ts';
import type { FastifyInstance, FastifyReply, FastifyRequest } from 'fastify';
import { Type, type Static, type TSchema } from 'typebox';
import type { Services } from '../../core/ctx.ts';
import { recordCustomerAction, type CustomerActionInput, type CustomerActionName } from '../../actions/customer-action.ts';
import { isPhoneProblem } from '../../domain/customer-phone.ts';
import { customerTexts } from '../../i18n/customer-texts.ts';
import { AppError, invalid } from '../../domain/errors.ts';
import { isId } from '../../domain/ids.ts';
import { TICKET_TOKEN_PATTERN } from '../../domain/ticket-token.ts';
import { customerCtx, findTicketByLink } from '../../actions/customer-link.ts';
import type { Ticket } from '../../core/ticket.ts';
import { openLiveStream } from '../../metrics.ts';
import { pickLanguage, isLanguage, type Language } from '../../i18n/language.ts';
import type { Live } from '../../realtime/live.ts';
import { attachPageStream, loadPageView } from '../../realtime/customer-live.ts';
import { confirmPageRing } from '../../realtime/ring-confirm.ts';
import { SSE_HEADERS, startSse } from '../../realtime/sse.ts';
import type { RateLimiter } from '../../realtime/limiter.ts';
import type { WebAssets } from '../pages/assets.ts';
import { customerManifest, customerNotFoundHtml, customerPageHtml, customerTooManyHtml, walletBadge } from '../pages/customer-html.ts';
import { LIVE_HEADERS, sendHtml } from '../pages/page-headers.ts';
import { linkLimiter, linkRefused } from './live-limits.ts';
import { hidden, typed } from '../operation.ts';
import { CLOSED_LINK_TTL_MS } from '../../domain/ticket-state.ts';

export type LivePagesDeps = { services: Services; live: Live; limiter: RateLimiter; assets: WebAssets; pushScript: string | null };

// A link of a ticket closed longer ago than CLOSED_LINK_TTL_MS answers like an unknown one.
const TOKEN = new RegExp(TICKET_TOKEN_PATTERN);

/** A branch as the live side reads it (settings cached for a few seconds). */
type Branch = NonNullable<Awaited<ReturnType<Live['data']['branch']>>>;

type Found = { ticket: Ticket; branch: Branch; lang: Language; base: string };

const wantsJson = (req: FastifyRequest): boolean => (req.headers.accept ?? '').includes('application/json');

// The routes' schemas type their handlers and refuse nothing the page sends: a malformed token is
// answered by find() (rate limited, the page's 404), and the page's fields are taken as any value
// and checked where they are read, so that a wrong one gets the page's own answer. Only a body
// that is not an object (no form or script of the page sends one) is refused, with a 422.
const Link = Type.Object({ token: Type.String() });
const PageQuery = Type.Object({ lang: Type.Optional(Type.Unknown()), phone_error: Type.Optional(Type.Unknown()) });
const page = { schema: hidden({ params: Link, querystring: PageQuery }) };
const pageWith = <B extends TSchema>(body: B) => ({ schema: hidden({ params: Link, querystring: PageQuery, body }) });
const SnoozeForm = Type.Object({ minutes: Type.Optional(Type.Unknown()) });
const PhoneForm = Type.Object({ phone: Type.Optional(Type.Unknown()) });
const RingAck = Type.Object({ ring_id: Type.Optional(Type.Unknown()) });

type PageRequest = FastifyRequest & { params: Static<typeof Link>; query: Static<typeof PageQuery> };

export function registerCustomerPage(fastify: FastifyInstance, deps: LivePagesDeps): void {
  const app = typed(fastify);
  const { services, live, assets } = deps;
  const { clock, config } = services;
  const limit = linkLimiter(deps.limiter, clock, services.metrics);
  const cssHash = assets.styleHash(assets.customerCss);

  /** Resolves the token, or answers (404 page, 429) and returns null. */
  async function find(req: PageRequest, reply: FastifyReply, html: boolean): Promise<Found | null> {
    const { token } = req.params;
    const fallback = pickLanguage(req.headers['accept-language'], 'en');
    const tooMany = (): null => {
      if (html) {
        sendHtml(reply, 429, customerTooManyHtml(fallback, assets), cssHash);
        return null;
      }
      throw linkRefused(reply);
    };
    const ticket = TOKEN.test(token) ? await findTicketByLink(services, token) : undefined;
    const branch = ticket && (await live.data.branch(ticket.branchId));
    if (ticket === undefined || branch === undefined || (ticket.closedAt !== null && clock.now() - ticket.closedAt > CLOSED_LINK_TTL_MS)) {
      if (!(await limit.unknown(req, reply))) return tooMany();
      if (html) {
        sendHtml(reply, 404, customerNotFoundHtml(fallback, assets), cssHash);
        return null;
      }
      throw new AppError('not-found', 'This link is not active.');
    }
    if (!(await limit.found(reply, `t:${token}`))) return tooMany();
    const q = req.query.lang;
    const lang = isLanguage(q) ? q : pickLanguage(req.headers['accept-language'], branch.settings.customer_page.language);
    return { ticket, branch, lang, base: `/t/${token}` };
  }

  async function act(
    req: FastifyRequest,
    found: Found,
    action: CustomerActionName,
    more: Omit<CustomerActionInput, 'ticketId' | 'action'> = {},
  ): Promise<Ticket> {
    const ctx = (await customerCtx(services, found.ticket, String(req.id), found.branch.accountId))!;
    const { ticket } = await write(ctx, { verb: recordCustomerAction, input: { ticketId: found.ticket.id, action, ...more } });
    return ticket;
  }

  /** A form's answer without script: the ticket's page again. */
  const back = (reply: FastifyReply, location: string) => reply.code(303).headers(LIVE_HEADERS).header('location', location).send();

  app.get('/t/:token', page, async (req, reply) => {
    const found = await find(req, reply, true);
    if (found === null) return reply;
    let { ticket } = found;
    // The first view is what the POS sees as ticket.customer_viewed; later views record nothing.
    if (ticket.viewedAt === null) ticket = await act(req, found, 'view').catch(() => ticket);
    const view = await loadPageView(live, ticket, found.branch, found.lang);
    // After a "text me" without script that was refused, the page says why (?phone_error=…).
    const problem = req.query.phone_error;
    const phone = {
      needsCountryCode: found.branch.settings.customer_page.phone_country === null,
      error: isPhoneProblem(problem) ? customerTexts(found.lang).t(`phone.error.${problem}`) : null,
    };
    // The wallets the operator configured (decisions 0071, 0072).
    const wallet = {
      apple: config.appleWallet === null ? null : walletBadge(req.headers['user-agent']),
      google: config.googleWallet !== null,
    };
    return sendHtml(
      reply,
      200,
      customerPageHtml({ view, base: found.base, assets, heartbeatMs: live.hub.heartbeatMs, pushScript: deps.pushScript, phone, wallet }),
      cssHash,
    );
  });

  app.get('/t/:token/manifest.webmanifest', page, async (req, reply) => {
    const found = await find(req, reply, true);
    if (found === null) return reply;
    const manifest = customerManifest({
      base: found.base,
      number: found.ticket.displayNumber,
      shop: found.branch.name,
      lang: found.lang,
      assets,
    });
    return reply.headers(LIVE_HEADERS).type('application/manifest+json').send(manifest);
  });

  app.get('/t/:token/events', page, async (req, reply) => {
    const found = await find(req, reply, false);
    if (found === null) return reply;
    // HEAD asks for GET's headers; a hijacked response to it would never send them.
    if (req.method === 'HEAD') return reply.headers({ ...SSE_HEADERS, ...LIVE_HEADERS }).send();
    reply.hijack();
    const stream = startSse(reply.raw, { ...LIVE_HEADERS, 'request-id': String(req.id) }, 2000);
    stream.onClose(openLiveStream(services.metrics, 'page'));
    // The response is ours now: a failure here ends the stream, and the page reconnects.
    await attachPageStream(live, found.ticket, found.lang, stream).catch((err: unknown) => {
      req.log.warn({ err }, 'customer stream failed to start');
      stream.close();
    });
  });

  /** `raw`: the snooze's minutes as the form or the script sent them. */
  const press = async (req: PageRequest, reply: FastifyReply, action: 'acknowledge' | 'snooze', raw?: unknown) => {
    const json = wantsJson(req);
    const found = await find(req, reply, !json);
    if (found === null) return reply;
    let minutes: number | undefined;
    if (action === 'snooze') {
      minutes = raw === undefined || raw === '' ? undefined : Number(raw);
      if (minutes !== undefined && !Number.isFinite(minutes)) throw invalid('/minutes', 'minutes must be a whole number.');
    }
    try {
      const ticket = await act(req, found, action, { minutes });
      if (!json) return back(reply, found.base);
      return reply.headers(LIVE_HEADERS).send(await loadPageView(live, ticket, found.branch, found.lang));
    } catch (err) {
      // Without script the page simply shows the ticket's current state again.
      if (!json && err instanceof AppError) return back(reply, found.base);
      throw err;
    }
  };
  app.post('/t/:token/acknowledge', page, (req, reply) => press(req, reply, 'acknowledge'));
  app.post('/t/:token/snooze', pageWith(SnoozeForm), (req, reply) => press(req, reply, 'snooze', req.body?.minutes));

  // "Text me": the number a customer types for SMS fallback, where the branch asks for one
  // (decision 0023); refused (403) elsewhere. What is wrong with a number is said in the page's
  // language: in the problem's detail, or without script on the page it redirects to.
  app.post('/t/:token/phone', pageWith(PhoneForm), async (req, reply) => {
    const json = wantsJson(req);
    const found = await find(req, reply, !json);
    if (found === null) return reply;
    const raw = req.body?.phone;
    try {
      const ticket = await act(req, found, 'subscribe', { channel: 'sms', phone: typeof raw === 'string' ? raw : '' });
      if (!json) return back(reply, found.base);
      return reply.headers(LIVE_HEADERS).send(await loadPageView(live, ticket, found.branch, found.lang));
    } catch (err) {
      const problem = err instanceof AppError ? err.extra.phone_problem : undefined;
      if (isPhoneProblem(problem)) {
        if (!json) return back(reply, `${found.base}?phone_error=${problem}#phone`);
        const detail = customerTexts(found.lang).t(`phone.error.${problem}`);
        throw new AppError('validation-failed', detail, { errors: [{ pointer: '/phone', detail }], phone_problem: problem });
      }
      if (!json && err instanceof AppError) return back(reply, found.base);
      throw err;
    }
  });

  // The page's confirmation that it showed a ring: any node may receive it; the bus carries it
  // to the node whose page channel is waiting (decision 0006).
  app.post('/t/:token/ring-ack', pageWith(RingAck), async (req, reply) => {
    const found = await find(req, reply, false);
    if (found === null) return reply;
    const ringId = req.body?.ring_id;
    if (typeof ringId !== 'string' || !isId('ring', ringId)) throw invalid('/ring_id', 'ring_id must be the id of a ring of this ticket.');
    await confirmPageRing(services, found.ticket, ringId);
    return reply.code(204).headers(LIVE_HEADERS).send();
  });
}
