// /v1/users: owners invite, re-role and remove the account's staff users from the staff page.
// API keys get 403 (PRODUCT.md §3: staff users are not in the integrators' API).
import type { FastifyInstance } from 'fastify';
import { Type } from 'typebox';
import type { Services } from '../../../core/ctx.ts';
import { deleteUser, inviteUser, listAccountUsers, updateUser } from '../../../actions/users.ts';
import { iso } from '../../../contract/present.ts';
import { notFound } from '../../../domain/errors.ts';
import { isId } from '../../../domain/ids.ts';
import { IdParam, ListOf, Ref } from '../../../contract/schema-parts.ts';
import { RoleSchema, UserSchema, type UserObject } from '../../../contract/staff-schemas.ts';
import { operation, typed } from '../../operation.ts';
import { runWrite } from '../../write.ts';
import { ctxFor } from './context.ts';

/** A user as the user verbs answer it. */
type UserRecord = Awaited<ReturnType<typeof listAccountUsers>>[number];

const present = (u: UserRecord, password: string | null = null): UserObject => ({
  object: 'user',
  id: u.id,
  email: u.email,
  role: u.role,
  created_at: iso(u.createdAt)!,
  removed_at: iso(u.removedAt),
  password,
});
const IdParams = Type.Object({ id: IdParam('user') });
const ownerOnly = 'Owner role, staff session only (API keys get 403).';
const userId = (id: string): string => {
  if (!isId('user', id)) throw notFound('user');
  return id;
};

export function registerUserRoutes(fastify: FastifyInstance, services: Services): void {
  const app = typed(fastify);
  app.get(
    '/users',
    {
      schema: operation({
        operationId: 'listUsers',
        tag: 'Staff administration',
        summary: 'List staff users',
        access: 'staff',
        description: `The account's staff users, removed ones left out. ${ownerOnly}`,
        answers: { 200: { description: 'Every user', schema: ListOf(Ref(UserSchema), 'Oldest first') } },
      }),
    },
    async (req) => ({
      object: 'list',
      data: (await listAccountUsers({ ctx: ctxFor(req, services), input: undefined })).map((u) => present(u)),
      has_more: false,
    }),
  );

  app.post(
    '/users',
    {
      schema: operation({
        operationId: 'inviteUser',
        tag: 'Staff administration',
        summary: 'Invite a staff user',
        access: 'staff',
        description: `The answer carries a one-time password, shown once. ${ownerOnly}`,
        body: Type.Object(
          { email: Type.String({ minLength: 3, maxLength: 254, examples: ['sam@example.com'] }), role: RoleSchema },
          { additionalProperties: false },
        ),
        answers: { 201: { description: 'The user, with a one-time `password`', schema: Ref(UserSchema) } },
        problems: { conflict: 'This email already has a readybell user.' },
      }),
    },
    async (req, reply) => {
      const body = req.body;
      return runWrite(req, reply, ctxFor(req, services), {
        status: 201,
        verb: inviteUser,
        input: body,
        present: ({ user, password }) => present(user, password),
        forReplay: (first) => ({ ...first, password: null }),
      });
    },
  );

  app.patch(
    '/users/:id',
    {
      schema: operation({
        operationId: 'updateUser',
        tag: 'Staff administration',
        summary: 'Update a staff user',
        access: 'staff',
        description: `Change their role, or reset their password (which ends all their sessions). ${ownerOnly}`,
        params: IdParams,
        body: Type.Object(
          {
            role: Type.Optional(RoleSchema),
            reset_password: Type.Optional(Type.Boolean({ description: 'true: a new one-time password, in the answer' })),
          },
          { additionalProperties: false },
        ),
        answers: { 200: { description: 'The user, with a one-time `password` after a reset', schema: Ref(UserSchema) } },
        problems: { 'last-owner': 'The last owner cannot be demoted, also when two owners demote each other at the same moment.' },
      }),
    },
    async (req, reply) => {
      const id = userId(req.params.id);
      const body = req.body ?? {};
      return runWrite(req, reply, ctxFor(req, services), {
        status: 200,
        verb: updateUser,
        input: { id, ...body },
        present: ({ user, password }) => present(user, password),
        forReplay: (first) => ({ ...first, password: null }),
      });
    },
  );

  app.delete(
    '/users/:id',
    {
      schema: operation({
        operationId: 'removeUser',
        tag: 'Staff administration',
        summary: 'Remove a staff user',
        access: 'staff',
        description: `Their sessions end at once. ${ownerOnly}`,
        params: IdParams,
        answers: { 200: { description: 'The user, removed', schema: Ref(UserSchema) } },
        problems: { conflict: 'Nobody removes themselves; another owner can.', 'last-owner': 'The last owner stays.' },
      }),
    },
    async (req, reply) => {
      const id = userId(req.params.id);
      return runWrite(req, reply, ctxFor(req, services), {
        status: 200,
        verb: deleteUser,
        input: { id },
        present: (user) => present(user),
      });
    },
  );
}
