// The owner's account zone (decision 0083): the account and its deletion state, the export of its
// data, its deletion and restore; and a user's request to change their own email (decision 0082).
// Staff page only: API keys get 403.
import { Readable } from 'node:stream';
import type { FastifyInstance } from 'fastify';
import { Type } from 'typebox';
import type { Services } from '../../../core/ctx.ts';
import { deleteAccount, readAccountStatus, restoreAccount } from '../../../actions/account-deletion.ts';
import { exportAccount } from '../../../actions/account-export.ts';
import { requestEmailChange } from '../../../actions/email-change.ts';
import { AccountSchema, EmailChangeSchema, LANGUAGE } from '../../../contract/account-schemas.ts';
import { Ref } from '../../../contract/schema-parts.ts';
import type { RateLimiter } from '../../../realtime/limiter.ts';
import { operation, typed } from '../../operation.ts';
import { runWrite } from '../../write.ts';
import { ctxFor } from './context.ts';
import { admitMail } from './mail-throttle.ts';

const ownerOnly = 'Owner role, staff session only (API keys get 403).';

export function registerAccountRoutes(fastify: FastifyInstance, services: Services, limiter: RateLimiter): void {
  const app = typed(fastify);
  app.get(
    '/account',
    {
      schema: operation({
        operationId: 'getAccount',
        tag: 'Staff administration',
        summary: 'Get the account',
        access: 'staff',
        description: `The account, and when it is being deleted, when it will be erased. ${ownerOnly}`,
        answers: { 200: { description: 'The account', schema: Ref(AccountSchema) } },
      }),
    },
    async (req) => readAccountStatus({ ctx: ctxFor(req, services), input: undefined }),
  );

  app.get(
    '/account/export',
    {
      schema: operation({
        operationId: 'exportAccount',
        tag: 'Staff administration',
        summary: "Export the account's data",
        access: 'staff',
        description:
          'One JSON document: the account, its users (no password hashes), and each branch with its settings, queues, and both modes’ tickets and events (events are kept 30 days). ' +
          `Streamed as it is read. Also while the account is being deleted. ${ownerOnly}`,
        answers: {
          200: {
            description: 'The data, as a file to save',
            schema: Type.Object({ object: Type.Literal('account_export') }, { additionalProperties: true }),
          },
        },
      }),
    },
    async (req, reply) => {
      const { filename, chunks } = await exportAccount({ ctx: ctxFor(req, services), input: undefined });
      reply
        .type('application/json; charset=utf-8')
        .header('Content-Disposition', `attachment; filename="${filename}"`)
        .header('Cache-Control', 'private, no-store');
      return reply.send(Readable.from(chunks));
    },
  );

  app.delete(
    '/account',
    {
      schema: operation({
        operationId: 'deleteAccount',
        tag: 'Staff administration',
        summary: 'Delete the account',
        access: 'staff',
        description:
          'Its API keys and every session stop at once, its subscription is cancelled, and everything is erased 30 days later. Until then an owner may sign in to export the data or restore the account. ' +
          ownerOnly,
        body: Type.Object(
          {
            name: Type.String({
              minLength: 1,
              maxLength: 200,
              description: "The account's name, typed to confirm",
              examples: ['Café Lumière'],
            }),
            language: Type.Optional(LANGUAGE),
          },
          { additionalProperties: false },
        ),
        answers: { 200: { description: 'The account, with the time it will be erased', schema: Ref(AccountSchema) } },
        problems: { 'validation-failed': "The name is not the account's.", conflict: 'The account is being deleted already.' },
      }),
    },
    async (req, reply) => runWrite(req, reply, ctxFor(req, services), { status: 200, verb: deleteAccount, input: req.body }),
  );

  app.post(
    '/account/restore',
    {
      schema: operation({
        operationId: 'restoreAccount',
        tag: 'Staff administration',
        summary: 'Restore a deleted account',
        access: 'staff',
        description: `Within 30 days of its deletion: everything works again as before (a cancelled subscription is taken out anew). ${ownerOnly}`,
        answers: { 200: { description: 'The account', schema: Ref(AccountSchema) } },
        problems: { conflict: 'The account is not being deleted.' },
      }),
    },
    async (req, reply) => runWrite(req, reply, ctxFor(req, services), { status: 200, verb: restoreAccount, input: undefined }),
  );

  app.post(
    '/session/email',
    {
      schema: operation({
        operationId: 'changeEmail',
        tag: 'Staff sessions',
        summary: 'Change your email',
        access: 'staff',
        description:
          'Mails a link, valid 24 hours, to the new address; the email changes when it is followed, and the old address is then told. Asks for the current password.',
        body: Type.Object(
          {
            email: Type.String({ minLength: 3, maxLength: 254, examples: ['sam@example.net'] }),
            password: Type.String({ minLength: 1, maxLength: 1024, examples: ['correct horse battery staple'] }),
            language: Type.Optional(LANGUAGE),
          },
          { additionalProperties: false },
        ),
        answers: { 202: { description: 'The link went to the new address', schema: Ref(EmailChangeSchema) } },
        problems: {
          'validation-failed': 'The password is wrong, or the email is not one or is yours already.',
          conflict: 'The email already has a readybell user.',
          'rate-limited': 'Too many emails from this address, or to this recipient.',
        },
      }),
    },
    async (req, reply) => {
      await admitMail(limiter, req, services.clock.now(), req.body.email);
      return runWrite(req, reply, ctxFor(req, services), { status: 202, verb: requestEmailChange, input: req.body });
    },
  );
}
