// Apple Wallet over HTTP (PRODUCT.md §14, decision 0071): the customer's "Add to Apple Wallet"
// (GET /t/<token>/wallet/apple.pkpass) and Apple's PassKit web service under /wallet/apple/v1/…
// (the pass's webServiceURL is <PUBLIC_URL>/wallet/apple, so Apple's /v1 paths never meet the
// API's). Devices authenticate with `Authorization: ApplePass <token>`; everything they may do is
// decided in actions/wallet-passes.ts. Without a Pass Type ID configured, every route is a 404.
import type { FastifyInstance, FastifyReply, FastifyRequest } from 'fastify';
import { Type } from 'typebox';
import type { Services } from '../../core/ctx.ts';
import type { AppleWalletConfig } from '../../core/config.ts';
import { certificateExpiry } from '../../domain/certificate-expiry.ts';
import { AppError, notFound } from '../../domain/errors.ts';
import { TICKET_TOKEN_PATTERN } from '../../domain/ticket-token.ts';
import { pickLanguage } from '../../i18n/language.ts';
import {
  fetchLatestWalletPass,
  issueApplePass,
  openTicketForPass,
  listUpdatedWalletSerials,
  registerWalletDevice,
  unregisterWalletDevice,
  type PassSubject,
} from '../../actions/wallet-passes.ts';
import { APPLE_WEB_SERVICE_PATH, passJson, PKPASS_TYPE } from '../../channels/wallet/apple/pass.ts';
import { PassSigner, type SigningPermit } from '../../channels/wallet/apple/pass-signer.ts';
import { watchPassCertificate } from '../../channels/wallet/apple/certificate-watch.ts';
import { MAX_DEVICES_PER_PASS, MAX_PASSES_PER_TICKET } from '../../actions/wallet-passes.ts';
import type { RateLimiter } from '../../realtime/limiter.ts';
import { linkLimiter, linkRefused } from './live-limits.ts';
import { hidden, typed } from '../operation.ts';
import type { AppModule } from '../route-table.ts';

/** `apple` null: no Pass Type ID configured, and every route answers 404. */
export type WalletRouteDeps = { services: Services; limiter: RateLimiter; apple: AppleWalletConfig | null };

/** What Apple's devices send: bounded, so that nothing unbounded reaches the store. */
const DeviceId = Type.String({ pattern: '^[A-Za-z0-9._-]{1,128}$' });
const Serial = Type.String({ pattern: '^[A-Za-z0-9_-]{1,64}$' });
const PassType = Type.String({ pattern: '^[A-Za-z0-9.-]{1,128}$' });
const Registration = Type.Object({ deviceId: DeviceId, passTypeId: PassType, serial: Serial });
const PushTokenBody = Type.Object({ pushToken: Type.String({ pattern: '^[0-9a-fA-F]{8,200}$' }) });
const Logs = Type.Object({ logs: Type.Array(Type.String({ maxLength: 2000 }), { maxItems: 50 }) });
/** At most this many of a device's log lines reach the log, per request. */
const LOGGED_LINES = 10;

export function registerAppleWalletRoutes(fastify: FastifyInstance, deps: WalletRouteDeps): void {
  const app = typed(fastify);
  const { services } = deps;
  if (deps.apple === null) {
    // The paths stay known to the route table; nothing behind them exists.
    const none = async (): Promise<never> => {
      throw notFound('wallet');
    };
    const v1 = `${APPLE_WEB_SERVICE_PATH}/v1`;
    const registration = `${v1}/devices/:deviceId/registrations/:passTypeId/:serial`;
    app.get('/t/:token/wallet/apple.pkpass', { schema: { hide: true } }, none);
    app.post(registration, { schema: { hide: true } }, none);
    app.delete(registration, { schema: { hide: true } }, none);
    app.get(`${v1}/devices/:deviceId/registrations/:passTypeId`, { schema: { hide: true } }, none);
    app.get(`${v1}/passes/:passTypeId/:serial`, { schema: { hide: true } }, none);
    app.post(`${v1}/log`, { schema: { hide: true } }, none);
    return;
  }
  const apple = deps.apple;
  const limit = linkLimiter(deps.limiter, services.clock, services.metrics);
  const BUSY = 'Too many requests; retry shortly.';
  const token = new RegExp(TICKET_TOKEN_PATTERN);
  const v1 = `${APPLE_WEB_SERVICE_PATH}/v1`;

  /** The pass's own token, from `Authorization: ApplePass <token>`; counted against the address when it does not open the pass. */
  const applePassToken = (req: FastifyRequest): string => {
    const m = /^ApplePass ([A-Za-z0-9_-]{16,128})$/.exec(req.headers.authorization ?? '');
    return m?.[1] ?? '';
  };
  const refuse = async (req: FastifyRequest, reply: FastifyReply): Promise<never> => {
    if (!(await limit.unknown(req, reply))) throw linkRefused(reply, BUSY);
    throw new AppError('unauthenticated', 'Send Authorization: ApplePass <the pass’s authenticationToken>.');
  };
  const ofThisType = (passTypeId: string): void => {
    if (passTypeId !== apple.passTypeId) throw notFound('pass type');
  };
  // Signing runs on threads (decision 0087), each branch and account within its share of them.
  const signer = new PassSigner(apple);
  signer.warm();
  const unwatch = watchPassCertificate({ apple, clock: services.clock, log: services.log, metrics: services.metrics });
  fastify.addHook('onClose', () => {
    unwatch();
    return signer.close();
  });
  const signingPlace = (reply: FastifyReply, branch: PassSubject['branch']): SigningPermit => {
    const permit = signer.admit({ branchId: branch.id, accountId: branch.accountId });
    if (permit !== null) return permit;
    reply.header('retry-after', '1');
    throw new AppError('rate-limited', 'Too many passes are being signed for this shop; retry shortly.', { retry_after: 1 });
  };
  const sendPass = async (
    reply: FastifyReply,
    permit: SigningPermit,
    s: PassSubject,
    authenticationToken: string,
    lang: string,
  ): Promise<FastifyReply> => {
    const json = passJson(apple, {
      ticket: s.ticket,
      shop: s.branch.name,
      lang: pickLanguage(lang, s.branch.settings.customer_page.language),
      serialNumber: s.pass.serialNumber,
      authenticationToken,
      publicUrl: services.config.publicUrl,
    });
    const body = await signer.sign(permit, JSON.stringify(json));
    return reply
      .header('cache-control', 'no-store')
      .header('last-modified', new Date(s.pass.updatedAt).toUTCString())
      .type(PKPASS_TYPE)
      .send(body);
  };

  // The customer's "Add to Apple Wallet": a new pass for an open ticket. Every refusal (the link's
  // bucket, the shop's signing share, a ticket whose passes are all on devices) comes before the
  // pass is written, so a refused download stores nothing and evicts nothing.
  app.get('/t/:token/wallet/apple.pkpass', { schema: hidden({ params: Type.Object({ token: Type.String() }) }) }, async (req, reply) => {
    const link = req.params.token;
    const found = token.test(link) ? await openTicketForPass(services, link) : null;
    if (found === null) {
      if (!(await limit.unknown(req, reply))) throw linkRefused(reply, BUSY);
      throw new AppError('not-found', 'This link has no open ticket.');
    }
    if (!(await limit.found(reply, `t:${link}`))) throw linkRefused(reply, BUSY);
    const permit = signingPlace(reply, found.branch);
    const issued = await issueApplePass(services, found).catch((err: unknown) => {
      permit.release();
      throw err;
    });
    if (issued === 'full') {
      permit.release();
      throw new AppError('conflict', `Each of this ticket's ${MAX_PASSES_PER_TICKET} passes is on a device already; use one of them.`);
    }
    reply.header('content-disposition', `attachment; filename="${issued.ticket.displayNumber.replace(/[^A-Za-z0-9-]/g, '')}.pkpass"`);
    return sendPass(reply, permit, issued, issued.authenticationToken, req.headers['accept-language'] ?? '');
  });

  const registration = `${v1}/devices/:deviceId/registrations/:passTypeId/:serial`;
  app.post(registration, { schema: hidden({ params: Registration, body: PushTokenBody }) }, async (req, reply) => {
    const { deviceId, passTypeId, serial } = req.params;
    ofThisType(passTypeId);
    // The pass's bucket is taken before the registration is written (a refused one stores nothing).
    // Only the pass's holder knows its serial (144 random bits), so no one else can use it up.
    if (!(await limit.found(reply, `w:${serial}`))) throw linkRefused(reply, BUSY);
    const answer = await registerWalletDevice(services, {
      serialNumber: serial,
      token: applePassToken(req),
      deviceId,
      pushToken: req.body.pushToken,
    });
    if (answer === null) return refuse(req, reply);
    if (answer === 'full') throw new AppError('conflict', `This pass is registered on ${MAX_DEVICES_PER_PASS} devices already.`);
    return reply.code(answer === 'created' ? 201 : 200).send();
  });

  app.delete(registration, { schema: hidden({ params: Registration }) }, async (req, reply) => {
    const { deviceId, passTypeId, serial } = req.params;
    ofThisType(passTypeId);
    if (!(await unregisterWalletDevice(services, { serialNumber: serial, token: applePassToken(req), deviceId })))
      return refuse(req, reply);
    if (!(await limit.found(reply, `w:${serial}`))) throw linkRefused(reply, BUSY);
    return reply.code(200).send();
  });

  app.get(
    `${v1}/devices/:deviceId/registrations/:passTypeId`,
    {
      schema: hidden({
        params: Type.Object({ deviceId: DeviceId, passTypeId: PassType }),
        querystring: Type.Object({ passesUpdatedSince: Type.Optional(Type.String({ pattern: '^[0-9]{1,15}$' })) }),
      }),
    },
    async (req, reply) => {
      const { deviceId, passTypeId } = req.params;
      ofThisType(passTypeId);
      // The device library id is this call's only secret (Apple's design): its own bucket.
      if (!(await limit.found(reply, `wd:${deviceId}`))) throw linkRefused(reply, BUSY);
      const since = req.query.passesUpdatedSince === undefined ? null : Number(req.query.passesUpdatedSince);
      const updated = await listUpdatedWalletSerials(services, deviceId, since);
      if (updated.serialNumbers.length === 0) return reply.code(204).send();
      return reply
        .header('cache-control', 'no-store')
        .send({ serialNumbers: updated.serialNumbers, lastUpdated: String(updated.lastUpdated) });
    },
  );

  app.get(
    `${v1}/passes/:passTypeId/:serial`,
    { schema: hidden({ params: Type.Object({ passTypeId: PassType, serial: Serial }) }) },
    async (req, reply) => {
      const { passTypeId, serial } = req.params;
      ofThisType(passTypeId);
      const passToken = applePassToken(req);
      const subject = await fetchLatestWalletPass(services, serial, passToken);
      if (subject === null) return refuse(req, reply);
      if (!(await limit.found(reply, `w:${serial}`))) throw linkRefused(reply, BUSY);
      const since = Date.parse(req.headers['if-modified-since'] ?? '');
      if (Number.isFinite(since) && subject.pass.updatedAt <= since)
        return reply.code(304).header('last-modified', new Date(subject.pass.updatedAt).toUTCString()).send();
      return sendPass(reply, signingPlace(reply, subject.branch), subject, passToken, req.headers['accept-language'] ?? '');
    },
  );

  // Wallet's own error reports about our passes: accepted, a few lines logged, never stored.
  app.post(`${v1}/log`, { schema: hidden({ body: Logs }) }, async (req, reply) => {
    if (!(await limit.unknown(req, reply))) throw linkRefused(reply, BUSY);
    for (const line of req.body.logs.slice(0, LOGGED_LINES)) req.log.info({ wallet_log: line.slice(0, 500) }, 'Apple Wallet log');
    return reply.code(200).send();
  });
}

/**
 * Apple Wallet as the app installs it (decision 0076): its routes' group, declared here rather than
 * named in the route table. Its close job is the wallet channel's (walletModule, channels/wallet/close-job.ts).
 */
export const appleWalletModule: AppModule = {
  name: 'apple-wallet',
  kind: 'channel',
  config: [
    'APPLE_PASS_TYPE_ID',
    'APPLE_TEAM_ID',
    'APPLE_PASS_CERT',
    'APPLE_PASS_KEY',
    'APPLE_PASS_KEY_PASSPHRASE',
    'APPLE_WWDR_CERT',
    'APNS_URL',
    'APNS_CA_FILE',
  ],
  configured: (config) => config.appleWallet !== null,
  // The pass certificate's end (a year after it is made): `expiring` from 30 days before. The node
  // stays ready; the operator’s monitoring reads it here or from the metric (issue 36 item 13).
  health: async (services) => {
    const apple = services.config.appleWallet;
    if (apple === null) return {};
    const cert = certificateExpiry(apple.cert, services.clock.now());
    return { certificate: cert.state, certificate_expires_at: new Date(cert.expiresAt).toISOString(), days_left: cert.daysLeft };
  },
  routes: {
    groups: [
      {
        scope: 'wallet',
        paths: 'GET /t/{token}/wallet/apple.pkpass, /wallet/apple/v1/… (Apple PassKit web service); 404 without a Pass Type ID configured',
        auth:
          "the ticket link's token for a new pass; Authorization: ApplePass <the pass's token> (hashed at rest, compared in constant time) " +
          'for registrations and the latest pass, the device library id for its updated serials (actions/wallet-passes.ts); rate-limited like ticket links',
        mount: (app, d) =>
          app.register(async (scope) =>
            registerAppleWalletRoutes(scope, { services: d.services, limiter: d.limiter, apple: d.services.config.appleWallet }),
          ),
      },
    ],
  },
};
