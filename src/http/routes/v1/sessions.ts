// Staff page sessions over /v1. Sign-in lives in its own scope (it is the one /v1 operation that
// needs no credentials); everything else is an ordinary authenticated /v1 route, which an API
// key may call but gets 403, since keys have no session.
import type { FastifyInstance, FastifyReply, FastifyRequest } from 'fastify';
import { Type, type Static } from 'typebox';
import type { Services } from '../../../core/ctx.ts';
import { AppError } from '../../../domain/errors.ts';
import { csrfTokenFor, SESSION_ABSOLUTE_MS } from '../../../domain/session-token.ts';
import type { RateLimiter } from '../../../realtime/limiter.ts';
import { findSessionByToken } from '../../../actions/session-lookup.ts';
import { changeOwnPassword, signIn, signOut, summarise, switchBranch, WRONG_CREDENTIALS } from '../../../actions/staff-session.ts';
import { sessionMode } from '../../plugins/mode-header.ts';
import { assertSameSite, clearSessionCookie, sessionOf, setSessionCookie, type StaffSession } from '../../plugins/session.ts';
import { EXAMPLE_IDS, Ref } from '../../../contract/schema-parts.ts';
import { SessionSchema } from '../../../contract/session-schema.ts';
import { operation, typed } from '../../operation.ts';
import { runWrite } from '../../write.ts';
import { ctxFor } from './context.ts';
import { admitSignIn } from './sign-in-throttle.ts';
import { countRefusal } from '../../../metrics.ts';

const SignedOut = Type.Object({ object: Type.Literal('session'), deleted: Type.Literal(true) });
const signedOut = (): Static<typeof SignedOut> => ({ object: 'session', deleted: true });

const cookieNote =
  'Staff page only. Sets an HttpOnly, SameSite=Lax session cookie (Secure over HTTPS) that /v1 accepts instead of an API key, with the CSRF token in X-CSRF-Token on unsafe methods.';

function current(req: FastifyRequest): StaffSession {
  const s = sessionOf(req);
  if (s === null) throw new AppError('forbidden', 'This operation needs a staff session (sign in on the staff page); API keys have none.');
  return s;
}

/** POST /v1/sessions, registered outside the authenticated /v1 scope. */
export function registerSignIn(fastify: FastifyInstance, services: Services, limiter: RateLimiter): void {
  const app = typed(fastify);
  app.post(
    '/sessions',
    {
      schema: operation({
        operationId: 'createSession',
        tag: 'Staff sessions',
        summary: 'Sign in',
        access: 'public',
        description: `${cookieNote} Throttled per address, per email and address, and (as a brake that an address without failures passes) per email.`,
        body: Type.Object(
          {
            email: Type.String({ minLength: 1, maxLength: 254, examples: ['owner@example.com'] }),
            password: Type.String({ minLength: 1, maxLength: 1024, examples: ['correct horse battery staple'] }),
            branch: Type.Optional(
              Type.String({
                maxLength: 64,
                description: "Start on this branch; default: the account's first",
                examples: [EXAMPLE_IDS.branch],
              }),
            ),
          },
          { additionalProperties: false },
        ),
        answers: { 201: { description: 'Signed in; the session cookie is set', schema: Ref(SessionSchema) } },
        problems: {
          unauthenticated: 'Wrong email or password: one message whichever part was wrong.',
          forbidden: 'The request came from another site.',
          'rate-limited': 'Too many attempts from this address or for this email; retry after `Retry-After` seconds.',
        },
      }),
    },
    async (req, reply) => {
      reply.header('Cache-Control', 'no-store');
      // Also a defence against login CSRF: a foreign page must not sign a victim into its account.
      assertSameSite(req, services.config);
      const body = req.body;
      const mode = sessionMode(req);
      const attempt = await admitSignIn(limiter, services.clock.now(), req.ip, body.email, (policy) =>
        countRefusal(services.metrics, policy),
      );
      let signed: Awaited<ReturnType<typeof signIn>>;
      try {
        signed = await signIn(services, body);
      } catch (err) {
        if (err instanceof AppError && err.code === 'unauthenticated') {
          await attempt.failed();
          throw new AppError('unauthenticated', WRONG_CREDENTIALS);
        }
        throw err;
      }
      const view = (await findSessionByToken(services, signed.token))!;
      setSessionCookie(req, reply, services.config, signed.token, SESSION_ABSOLUTE_MS);
      return reply.code(201).send(await summarise(services, view, csrfTokenFor(signed.token), mode));
    },
  );
}

export function registerSessionRoutes(fastify: FastifyInstance, services: Services): void {
  const app = typed(fastify);
  const noStore = async (_req: FastifyRequest, reply: FastifyReply) => {
    reply.header('Cache-Control', 'no-store');
  };

  app.get(
    '/session',
    {
      onRequest: noStore,
      schema: operation({
        operationId: 'getSession',
        tag: 'Staff sessions',
        summary: 'Get the current session',
        access: 'staff',
        description: cookieNote,
        answers: { 200: { description: 'The session, with its CSRF token', schema: Ref(SessionSchema) } },
      }),
    },
    async (req) => {
      const s = current(req);
      return summarise(services, s.view, s.csrfToken, req.auth!.mode);
    },
  );

  app.delete(
    '/session',
    {
      schema: operation({
        operationId: 'deleteSession',
        tag: 'Staff sessions',
        summary: 'Sign out',
        access: 'staff',
        description: 'Ends this session at once (the cookie no longer works anywhere) and clears the cookie.',
        answers: { 200: { description: 'Signed out', schema: SignedOut } },
      }),
    },
    async (req, reply) => {
      const s = current(req);
      clearSessionCookie(req, reply, services.config);
      return runWrite(req, reply, ctxFor(req, services), {
        status: 200,
        verb: signOut,
        input: { sessionId: s.view.id },
        present: signedOut,
      });
    },
  );

  app.post(
    '/session/branch',
    {
      schema: operation({
        operationId: 'switchSessionBranch',
        tag: 'Staff sessions',
        summary: 'Switch branch',
        access: 'staff',
        description: 'The session acts on another branch of the same account from its next request.',
        body: Type.Object(
          { branch: Type.String({ minLength: 1, maxLength: 64, examples: [EXAMPLE_IDS.branch] }) },
          { additionalProperties: false },
        ),
        answers: { 200: { description: 'The session, on the new branch', schema: Ref(SessionSchema) } },
        problems: { 'validation-failed': "The user's account has no such branch." },
      }),
    },
    async (req, reply) => {
      const s = current(req);
      const { branch } = req.body;
      return runWrite(req, reply, ctxFor(req, services), {
        status: 200,
        verb: switchBranch,
        input: { session: s.view, csrfToken: s.csrfToken, branch },
      });
    },
  );

  app.post(
    '/session/password',
    {
      schema: operation({
        operationId: 'changePassword',
        tag: 'Staff sessions',
        summary: 'Change your password',
        access: 'staff',
        description: 'Ends every session of the user, this one included (sign in again with the new password).',
        body: Type.Object(
          {
            current_password: Type.String({ minLength: 1, maxLength: 1024, examples: ['correct horse battery staple'] }),
            new_password: Type.String({ minLength: 10, maxLength: 1024, examples: ['a longer passphrase of mine'] }),
          },
          { additionalProperties: false },
        ),
        answers: { 200: { description: 'Changed; every session of the user ended', schema: SignedOut } },
        problems: { 'validation-failed': 'The current password is wrong, or the new one is too short.' },
      }),
    },
    async (req, reply) => {
      current(req);
      const input = req.body;
      return runWrite(req, reply, ctxFor(req, services), { status: 200, verb: changeOwnPassword, input, present: signedOut });
    },
  );
}
