// The emailed links' operations (decision 0082), which need no credentials: the link's token is
// the capability. Accepting an invitation and confirming an email change each run as the system on
// the account the token names, through the one write path. Same-site requests only, as sign-in;
// throttled per address (mail-throttle.ts).
import type { FastifyInstance } from 'fastify';
import { Type } from 'typebox';
import type { Services } from '../../../core/ctx.ts';
import { acceptInvitation, invitationCtx } from '../../../actions/invitations.ts';
import { confirmEmailChange, emailChangeCtx } from '../../../actions/email-change.ts';
import { EmailChangeSchema, InvitationAcceptanceSchema } from '../../../contract/account-schemas.ts';
import { Ref } from '../../../contract/schema-parts.ts';
import type { RateLimiter } from '../../../realtime/limiter.ts';
import { assertSameSite } from '../../plugins/session.ts';
import { operation, typed } from '../../operation.ts';
import { runWrite } from '../../write.ts';
import { admitLinkUse } from './mail-throttle.ts';

const Token = Type.String({
  minLength: 1,
  maxLength: 128,
  description: "The token from the emailed link's fragment",
  examples: ['Xk2v9QmH4c7PzR1bXk2v9QmH4c7PzR1bXk2v9QmH4c7'],
});
const UNUSABLE = 'The link has expired, was revoked, replaced or already used (one message for all).';

/** Registered outside the authenticated /v1 scope, beside sign-in. */
export function registerAccountLinks(fastify: FastifyInstance, services: Services, limiter: RateLimiter): void {
  const app = typed(fastify);
  app.post(
    '/invitations/accept',
    {
      schema: operation({
        operationId: 'acceptInvitation',
        tag: 'Staff sessions',
        summary: 'Accept an invitation',
        access: 'public',
        description: 'Creates the invited user with the password they chose; then sign in with POST /v1/sessions. The link works once.',
        body: Type.Object(
          { token: Token, password: Type.String({ minLength: 1, maxLength: 1024, examples: ['a passphrase of my own'] }) },
          { additionalProperties: false },
        ),
        answers: { 201: { description: 'The user exists; sign in', schema: InvitationAcceptanceSchema } },
        problems: {
          'validation-failed': `${UNUSABLE} Or the password is shorter than 10 characters.`,
          conflict: 'The email has a readybell user already.',
          'rate-limited': 'Too many link uses from this address.',
        },
      }),
    },
    async (req, reply) => {
      reply.header('Cache-Control', 'no-store');
      assertSameSite(req, services.config);
      await admitLinkUse(limiter, services.clock.now(), req.ip);
      const ctx = await invitationCtx(services, req.body.token);
      return runWrite(req, reply, ctx, { status: 201, verb: acceptInvitation, input: req.body });
    },
  );

  app.post(
    '/email_changes/confirm',
    {
      schema: operation({
        operationId: 'confirmEmailChange',
        tag: 'Staff sessions',
        summary: 'Confirm a new email',
        access: 'public',
        description: "Makes the new address the user's email and tells the old one. The link works once.",
        body: Type.Object({ token: Token }, { additionalProperties: false }),
        answers: { 200: { description: 'Changed', schema: Ref(EmailChangeSchema) } },
        problems: {
          'validation-failed': UNUSABLE,
          conflict: 'The new email has a readybell user already.',
          'rate-limited': 'Too many link uses from this address.',
        },
      }),
    },
    async (req, reply) => {
      reply.header('Cache-Control', 'no-store');
      assertSameSite(req, services.config);
      await admitLinkUse(limiter, services.clock.now(), req.ip);
      const ctx = await emailChangeCtx(services, req.body.token);
      return runWrite(req, reply, ctx, { status: 200, verb: confirmEmailChange, input: req.body });
    },
  );
}
