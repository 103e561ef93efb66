// GET /t/<token>/wallet/google: the customer page's "Add to Google Wallet" (docs/google-wallet.md).
// It answers 303 to Google's save page with a freshly signed link, so the pass Google shows is the
// ticket's state at the tap, and that tap is the first moment anything about the ticket goes to
// Google. Only an open ticket of a configured issuer has one; anything else is a 404 problem.
import type { FastifyInstance } from 'fastify';
import { Type } from 'typebox';
import type { Services } from '../../core/ctx.ts';
import { AppError } from '../../domain/errors.ts';
import { TICKET_TOKEN_PATTERN } from '../../domain/ticket-token.ts';
import { findTicketByLink } from '../../actions/customer-link.ts';
import type { GoogleWalletIssuer } from '../../channels/wallet/google/google-issuer.ts';
import type { Live } from '../../realtime/live.ts';
import type { RateLimiter } from '../../realtime/limiter.ts';
import { LIVE_HEADERS } from '../pages/page-headers.ts';
import { linkLimiter, linkRefused, WALLET_ADD_POLICY } from './live-limits.ts';
import { hidden, typed } from '../operation.ts';
import type { AppModule } from '../route-table.ts';

export type GoogleWalletRouteDeps = { services: Services; live: Live; limiter: RateLimiter; issuer: GoogleWalletIssuer | null };

const TOKEN = new RegExp(TICKET_TOKEN_PATTERN);
export const GOOGLE_WALLET_PATH = '/t/:token/wallet/google';

export function registerGoogleWalletRoute(fastify: FastifyInstance, deps: GoogleWalletRouteDeps): void {
  const { services, live, issuer } = deps;
  const limit = linkLimiter(deps.limiter, services.clock, services.metrics);

  typed(fastify).get(GOOGLE_WALLET_PATH, { schema: hidden({ params: Type.Object({ token: Type.String() }) }) }, async (req, reply) => {
    const { token } = req.params;
    const ticket = issuer !== null && TOKEN.test(token) ? await findTicketByLink(services, token) : undefined;
    const branch = ticket && (await live.data.branch(ticket.branchId));
    if (issuer === null || ticket === undefined || branch === undefined) {
      if (!(await limit.unknown(req, reply))) throw linkRefused(reply);
      throw new AppError('not-found', issuer === null ? 'Google Wallet is not set up on this server.' : 'This link is not active.');
    }
    if (!(await limit.found(reply, `t:${token}`)) || !(await limit.found(reply, `wg:${token}`, WALLET_ADD_POLICY)))
      throw linkRefused(reply);
    if (ticket.closedAt !== null) throw new AppError('not-found', 'This ticket is closed: it has no pass to add.');
    const url = await issuer.saveUrl(ticket, branch);
    return reply.code(303).headers(LIVE_HEADERS).header('location', url).send();
  });
}

/**
 * Google Wallet as the app installs it (decision 0076): its save link's group, with the issuer the
 * channels built (null when not configured: the link answers 404), so nothing threads the issuer
 * through the app, the server and the route table.
 */
export const googleWalletModule = (issuer: GoogleWalletIssuer | null): AppModule => ({
  name: 'google-wallet',
  kind: 'channel',
  config: ['GOOGLE_WALLET_ISSUER_ID', 'GOOGLE_WALLET_SERVICE_ACCOUNT', 'GOOGLE_WALLET_SERVICE_ACCOUNT_FILE', 'GOOGLE_WALLET_API_URL'],
  configured: (config) => config.googleWallet !== null,
  routes: {
    groups: [
      {
        scope: 'google-wallet',
        paths: 'GET /t/{token}/wallet/google',
        auth: "the ticket link's token (a capability for one ticket), rate-limited per link and per address (live-limits.ts)",
        mount: (app, d) => registerGoogleWalletRoute(app, { services: d.services, live: d.live, limiter: d.limiter, issuer }),
      },
    ],
  },
});
