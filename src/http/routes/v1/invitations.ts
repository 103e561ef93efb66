// /v1/invitations: an owner invites staff users by email, resends and revokes (decision 0082).
// Staff page only: API keys get 403, as for users. Every send is throttled (mail-throttle.ts).
import type { FastifyInstance } from 'fastify';
import { Type } from 'typebox';
import type { Services } from '../../../core/ctx.ts';
import { inviteByEmail, listInvitations, resendInvitation, revokeInvitation } from '../../../actions/invitations.ts';
import { InvitationSchema, LANGUAGE } from '../../../contract/account-schemas.ts';
import { notFound } from '../../../domain/errors.ts';
import { isId } from '../../../domain/ids.ts';
import type { RateLimiter } from '../../../realtime/limiter.ts';
import { IdParam, ListOf, Ref, StringEnum } from '../../../contract/schema-parts.ts';
import { operation, typed } from '../../operation.ts';
import { runWrite } from '../../write.ts';
import { ctxFor } from './context.ts';
import { admitMail } from './mail-throttle.ts';

const ownerOnly = 'Owner role, staff session only (API keys get 403).';
const IdParams = Type.Object({ id: IdParam('invitation') });
const invitationId = (id: string): string => {
  if (!isId('invitation', id)) throw notFound('invitation');
  return id;
};
const THROTTLED = {
  'rate-limited': 'Too many emails from this address, or to this recipient; retry after `Retry-After` seconds.',
} as const;

export function registerInvitationRoutes(fastify: FastifyInstance, services: Services, limiter: RateLimiter): void {
  const app = typed(fastify);
  app.get(
    '/invitations',
    {
      schema: operation({
        operationId: 'listInvitations',
        tag: 'Staff administration',
        summary: 'List open invitations',
        access: 'staff',
        description: `Invitations neither accepted nor revoked, newest first; expired ones too (resend them). ${ownerOnly}`,
        answers: { 200: { description: 'The open invitations', schema: ListOf(Ref(InvitationSchema), 'Newest first') } },
      }),
    },
    async (req) => ({ object: 'list', data: await listInvitations({ ctx: ctxFor(req, services), input: undefined }), has_more: false }),
  );

  app.post(
    '/invitations',
    {
      schema: operation({
        operationId: 'createInvitation',
        tag: 'Staff administration',
        summary: 'Invite a staff user by email',
        access: 'staff',
        description: `Mails a link, valid 7 days and usable once, with which the invitee chooses their own password. ${ownerOnly}`,
        body: Type.Object(
          {
            email: Type.String({ minLength: 3, maxLength: 254, examples: ['sam@example.com'] }),
            role: StringEnum(['owner', 'manager', 'staff']),
            language: Type.Optional(LANGUAGE),
          },
          { additionalProperties: false },
        ),
        answers: { 201: { description: 'The invitation; its link went by mail only', schema: Ref(InvitationSchema) } },
        problems: { conflict: 'This email already has a readybell user, or an open invitation of this account.', ...THROTTLED },
      }),
    },
    async (req, reply) => {
      await admitMail(limiter, req, services.clock.now(), req.body.email);
      return runWrite(req, reply, ctxFor(req, services), { status: 201, verb: inviteByEmail, input: req.body });
    },
  );

  app.post(
    '/invitations/:id/resend',
    {
      schema: operation({
        operationId: 'resendInvitation',
        tag: 'Staff administration',
        summary: 'Resend an invitation',
        access: 'staff',
        description: `Mails a new link, valid 7 days from now; the previous link stops working. ${ownerOnly}`,
        params: IdParams,
        answers: { 200: { description: 'The invitation', schema: Ref(InvitationSchema) } },
        problems: { conflict: 'The invitation was accepted or revoked.', ...THROTTLED },
      }),
    },
    async (req, reply) => {
      const id = invitationId(req.params.id);
      await admitMail(limiter, req, services.clock.now(), `invitation:${id}`);
      return runWrite(req, reply, ctxFor(req, services), { status: 200, verb: resendInvitation, input: { id } });
    },
  );

  app.delete(
    '/invitations/:id',
    {
      schema: operation({
        operationId: 'revokeInvitation',
        tag: 'Staff administration',
        summary: 'Revoke an invitation',
        access: 'staff',
        description: `Its link stops working at once. ${ownerOnly}`,
        params: IdParams,
        answers: { 200: { description: 'The invitation, revoked', schema: Ref(InvitationSchema) } },
        problems: { conflict: 'The invitation was accepted or revoked already.' },
      }),
    },
    async (req, reply) => {
      const id = invitationId(req.params.id);
      return runWrite(req, reply, ctxFor(req, services), { status: 200, verb: revokeInvitation, input: { id } });
    },
  );
}
