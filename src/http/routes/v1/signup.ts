// Sign-up, email verification and password reset (decision 0081): public /v1 operations, mounted
// beside sign-in outside the authenticated scope (route-table.ts, scope `sign-up`), and the signed-in
// user's request for a new verification mail, an ordinary /v1 operation. Each public route takes
// its throttle before any password is hashed or mail written, and calls its verb through the
// public write path; none answers differently for a known email.
import type { FastifyInstance } from 'fastify';
import { Type } from 'typebox';
import type { Services } from '../../../core/ctx.ts';
import type { RateLimiter } from '../../../realtime/limiter.ts';
import { countRefusal } from '../../../metrics.ts';
import { csrfTokenFor, SESSION_ABSOLUTE_MS } from '../../../domain/session-token.ts';
import { MAIL_LANGUAGES, mailLanguage } from '../../../mail/mail-kind.ts';
import { prepareSignup, signUp, signupSettings } from '../../../actions/signup.ts';
import { sendVerificationEmail, verifyEmail } from '../../../actions/verify-email.ts';
import { prepareNewPassword, requestPasswordReset, resetPassword } from '../../../actions/password-reset.ts';
import { findSessionByToken } from '../../../actions/session-lookup.ts';
import { summarise } from '../../../actions/staff-session.ts';
import { runPublicWrite } from '../../../write/public-write.ts';
import { Ref, StringEnum } from '../../../contract/schema-parts.ts';
import { SessionSchema } from '../../../contract/session-schema.ts';
import { operation, typed } from '../../operation.ts';
import { runWrite } from '../../write.ts';
import { assertSameSite, setSessionCookie } from '../../plugins/session.ts';
import { sessionMode } from '../../plugins/mode-header.ts';
import { ctxFor } from './context.ts';
import {
  admit,
  byAddress,
  byEmail,
  byUser,
  LINK_PER_ADDRESS,
  RESET_PER_ADDRESS,
  RESET_PER_EMAIL,
  SIGNUP_PER_ADDRESS,
  SIGNUP_PER_EMAIL,
  VERIFY_MAIL_PER_USER,
  type Throttle,
} from './signup-throttle.ts';

const Email = Type.String({ minLength: 1, maxLength: 254, examples: ['owner@example.com'] });
const Password = Type.String({
  minLength: 1,
  maxLength: 1024,
  description: 'At least 10 characters, not one of the most common passwords, not the email or the shop name',
  examples: ['a long phrase of my own'],
});
const Token = Type.String({
  minLength: 1,
  maxLength: 128,
  description: "The emailed link's token (after #/verify/ or #/reset/)",
  examples: ['Q2hvb3NlIGEgbG9uZyByYW5kb20gdG9rZW4gaGVyZQ'],
});
const Language = Type.Optional(
  StringEnum(MAIL_LANGUAGES, { description: "The email's language; default: from Accept-Language, else English" }),
);
const Delivery = StringEnum(['smtp', 'log'], { description: '`log`: no mail server (SMTP_URL); the link is in the log' });

const Accepted = (object: string, description: string) =>
  Type.Object(
    { object: Type.Literal(object), email: Type.String({ examples: ['owner@example.com'] }), email_delivery: Delivery },
    { description },
  );

const SignupSettingsSchema = Type.Object({
  object: Type.Literal('signup_settings'),
  open: Type.Boolean({ description: 'Whether this readybell takes a sign-up now' }),
  mode: StringEnum(['open', 'first-owner', 'off'], { description: 'SIGNUP: `first-owner` takes one, while no account exists' }),
  plan: StringEnum(['free', 'pro'], { description: 'The plan a new account starts on: `pro` during a trial' }),
  trial_days: Type.Integer({ description: 'Length of the trial of the pro plan (TRIAL_DAYS); 0: the free plan', examples: [14] }),
  email_delivery: Delivery,
  min_password_length: Type.Integer({ examples: [10] }),
});

const sameAnswer = 'The same answer whether or not the email is known.';

export function registerSignup(fastify: FastifyInstance, services: Services, limiter: RateLimiter): void {
  const app = typed(fastify);
  const throttle = (): Throttle => ({ limiter, now: services.clock.now(), onRefused: (p) => countRefusal(services.metrics, p) });

  app.get(
    '/signup',
    {
      schema: operation({
        operationId: 'getSignupSettings',
        tag: 'Staff sessions',
        summary: 'Whether sign-up is open',
        access: 'public',
        description: "Whether sign-up is open, the new account's plan and trial, and how emails leave.",
        answers: { 200: { description: 'The sign-up settings', schema: SignupSettingsSchema } },
      }),
    },
    async (_req, reply) => {
      reply.header('Cache-Control', 'no-store');
      const s = await signupSettings(services);
      return {
        object: 'signup_settings' as const,
        open: s.open,
        mode: s.mode,
        plan: s.plan,
        trial_days: s.trialDays,
        email_delivery: s.emailDelivery,
        min_password_length: 10,
      };
    },
  );

  app.post(
    '/signup',
    {
      schema: operation({
        operationId: 'signUp',
        tag: 'Staff sessions',
        summary: 'Sign up a shop',
        access: 'public',
        description:
          'Creates the account (pro during the trial, else free), its branch with queue A and its owner, and emails a link to POST /v1/signup/verify. ' +
          `${sameAnswer} Throttled per address and email.`,
        body: Type.Object(
          {
            email: Email,
            password: Password,
            shop_name: Type.String({ minLength: 1, maxLength: 100, examples: ['Café Lumière'] }),
            timezone: Type.String({ minLength: 1, maxLength: 64, examples: ['Europe/Paris'] }),
            language: Language,
          },
          { additionalProperties: false },
        ),
        answers: { 202: { description: 'Accepted: the owner is sent an email', schema: Accepted('signup', 'A sign-up, accepted') } },
        problems: {
          'validation-failed': 'A field is wrong: the email, the shop name, the time zone, or a password that is too short or too common.',
          forbidden: 'Sign-up is closed on this readybell (SIGNUP), or its first owner has signed up already.',
          'rate-limited': 'Too many sign-ups from this address or for this email; retry after `Retry-After` seconds.',
        },
      }),
    },
    async (req, reply) => {
      reply.header('Cache-Control', 'no-store');
      const body = req.body;
      await admit(throttle(), [byAddress(SIGNUP_PER_ADDRESS, req.ip), byEmail(SIGNUP_PER_EMAIL, body.email)]);
      const lang = mailLanguage(body.language, req.headers['accept-language']);
      const input = await prepareSignup(services, { ...body, lang });
      const done = await runPublicWrite(services, String(req.id), signUp, input);
      return reply.code(202).send({ object: 'signup', email: input.email, email_delivery: done.emailDelivery });
    },
  );

  app.post(
    '/signup/verify',
    {
      schema: operation({
        operationId: 'verifyEmail',
        tag: 'Staff sessions',
        summary: 'Verify an email address',
        access: 'public',
        description:
          "Spends the emailed link (once, within 7 days), verifies the address (live keys wait for it) and signs in. A shop's first verification answers its first test key, once.",
        body: Type.Object({ token: Token }, { additionalProperties: false }),
        answers: {
          201: {
            description: 'Verified and signed in',
            schema: Type.Object({
              object: Type.Literal('email_verification'),
              session: Ref(SessionSchema),
              test_key: Type.Union([Type.String({ examples: ['rk_test_7Qm2ZxV9cT4kLp8WnR3sYb6HdJf1a1B2'] }), Type.Null()], {
                description: "The shop's first test key, on its first verification only: store it now",
              }),
            }),
          },
        },
        problems: {
          'validation-failed': 'The link has expired, has been used, or is not one (`/token`).',
          forbidden: 'The request came from another site.',
          'rate-limited': 'Too many links tried from this address.',
        },
      }),
    },
    async (req, reply) => {
      reply.header('Cache-Control', 'no-store');
      // It signs in: a foreign page must not sign a visitor into someone else's account.
      assertSameSite(req, services.config);
      await admit(throttle(), [byAddress(LINK_PER_ADDRESS, req.ip)]);
      const done = await runPublicWrite(services, String(req.id), verifyEmail, { token: req.body.token });
      const view = (await findSessionByToken(services, done.token))!;
      setSessionCookie(req, reply, services.config, done.token, SESSION_ABSOLUTE_MS);
      const session = await summarise(services, view, csrfTokenFor(done.token), sessionMode(req));
      return reply.code(201).send({ object: 'email_verification', session, test_key: done.testKey });
    },
  );

  app.post(
    '/password_resets',
    {
      schema: operation({
        operationId: 'requestPasswordReset',
        tag: 'Staff sessions',
        summary: 'Forgot password',
        access: 'public',
        description: `Emails a link to choose a new password (once, within the hour). ${sameAnswer} Throttled per address and email.`,
        body: Type.Object({ email: Email, language: Language }, { additionalProperties: false }),
        answers: {
          202: {
            description: 'Accepted: if the email is a user, a link is on its way',
            schema: Accepted('password_reset_request', 'A reset, asked for'),
          },
        },
        problems: { 'rate-limited': 'Too many requests from this address or for this email; retry after `Retry-After` seconds.' },
      }),
    },
    async (req, reply) => {
      reply.header('Cache-Control', 'no-store');
      const { email, language } = req.body;
      await admit(throttle(), [byAddress(RESET_PER_ADDRESS, req.ip), byEmail(RESET_PER_EMAIL, email)]);
      const lang = mailLanguage(language, req.headers['accept-language']);
      const delivery = await runPublicWrite(services, String(req.id), requestPasswordReset, { email, lang });
      return reply.code(202).send({ object: 'password_reset_request', email: email.trim().toLowerCase(), email_delivery: delivery });
    },
  );

  app.post(
    '/password_resets/complete',
    {
      schema: operation({
        operationId: 'resetPassword',
        tag: 'Staff sessions',
        summary: 'Choose a new password',
        access: 'public',
        description: 'Spends the emailed reset link, sets the password and ends every session of the user.',
        body: Type.Object({ token: Token, password: Password }, { additionalProperties: false }),
        answers: {
          200: {
            description: 'The password is changed; every session of the user ended',
            schema: Type.Object({ object: Type.Literal('password_reset'), completed: Type.Literal(true) }),
          },
        },
        problems: {
          'validation-failed': 'The link has expired or been used (`/token`), or the password is too short or too common (`/password`).',
          'rate-limited': 'Too many links tried from this address.',
        },
      }),
    },
    async (req, reply) => {
      reply.header('Cache-Control', 'no-store');
      await admit(throttle(), [byAddress(LINK_PER_ADDRESS, req.ip)]);
      const passwordHash = await prepareNewPassword(req.body.password);
      await runPublicWrite(services, String(req.id), resetPassword, { token: req.body.token, passwordHash });
      return reply.code(200).send({ object: 'password_reset', completed: true });
    },
  );
}

/** POST /v1/session/verification_email, in the authenticated scope. */
export function registerVerificationEmailRoute(fastify: FastifyInstance, services: Services, limiter: RateLimiter): void {
  const app = typed(fastify);
  app.post(
    '/session/verification_email',
    {
      schema: operation({
        operationId: 'sendVerificationEmail',
        tag: 'Staff sessions',
        summary: 'Send a new verification email',
        access: 'staff',
        description:
          'Emails the signed-in user a new link to verify their address (live API keys wait for it). Throttled per user: 3, then one every 20 minutes.',
        body: Type.Object({ language: Language }, { additionalProperties: false }),
        answers: {
          202: {
            description: 'A link is on its way',
            schema: Type.Object({ object: Type.Literal('verification_email'), email_delivery: Delivery }),
          },
        },
        problems: {
          conflict: 'The address is verified already.',
          'rate-limited': 'Too many verification emails for this user; retry after `Retry-After` seconds.',
        },
      }),
    },
    async (req, reply) => {
      const ctx = ctxFor(req, services);
      if (ctx.actor.kind === 'user')
        await admit({ limiter, now: services.clock.now(), onRefused: (p) => countRefusal(services.metrics, p) }, [
          byUser(VERIFY_MAIL_PER_USER, ctx.actor.userId),
        ]);
      const lang = mailLanguage(req.body?.language, req.headers['accept-language']);
      return runWrite(req, reply, ctx, {
        status: 202,
        verb: sendVerificationEmail,
        input: { lang },
      });
    },
  );
}
