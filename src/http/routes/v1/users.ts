// /v1/users: owners invite, re-role and remove the account's staff users from the staff page.
// API keys get 403 (PRODUCT.md §3: staff users are not in the integrators' API).
import type { FastifyInstance } from 'fastify';
import { Type } from 'typebox';
import type { Services } from '../../../actions/ctx.ts';
import { deleteUser, inviteUser, listAccountUsers, updateUser } from '../../../actions/users.ts';
import { iso } from '../../../actions/present.ts';
import { notFound } from '../../../domain/errors.ts';
import { isId } from '../../../domain/ids.ts';
import type { Role, UserRecord } from '../../../store/credentials.ts';
import { Nullable, problemResponses, Timestamp } from '../../schemas.ts';
import { runWrite } from '../../write.ts';
import { ctxFor } from './context.ts';

const RoleSchema = Type.Union([Type.Literal('owner'), Type.Literal('manager'), Type.Literal('staff')], {
  description: 'owner: everything (keys, users, webhooks); manager: queues, displays, settings; staff: tickets',
});

const UserSchema = Type.Object({
  object: Type.Literal('user'),
  id: Type.String({ pattern: '^usr_' }),
  email: Type.String(),
  role: RoleSchema,
  created_at: Timestamp,
  removed_at: Nullable(Timestamp),
  password: Nullable(Type.String({ description: 'A one-time password: only in the answer that invited the user or reset the password, never in a replay. Hand it over now.' })),
});

const present = (u: UserRecord, password: string | null = null) => ({
  object: 'user' as const, id: u.id, email: u.email, role: u.role, created_at: iso(u.createdAt)!, removed_at: iso(u.removedAt), password,
});
const IdParams = Type.Object({ id: Type.String({ maxLength: 64 }) });
const ownerOnly = 'Owner role, staff session only (API keys get 403).';
const userId = (params: unknown): string => {
  const { id } = params as { id: string };
  if (!isId('user', id)) throw notFound('user');
  return id;
};

export function registerUserRoutes(app: FastifyInstance, services: Services): void {
  app.get('/users', {
    schema: {
      tags: ['staff administration'], summary: "List the account's staff users", description: ownerOnly,
      response: { 200: Type.Object({ object: Type.Literal('list'), data: Type.Array(UserSchema), has_more: Type.Boolean() }), ...problemResponses() },
    },
  }, async (req) => ({ object: 'list', data: (await listAccountUsers(ctxFor(req, services))).map((u) => present(u)), has_more: false }));

  app.post('/users', {
    schema: {
      tags: ['staff administration'], summary: 'Invite a staff user (a one-time password is shown once)', description: ownerOnly,
      body: Type.Object({ email: Type.String({ minLength: 3, maxLength: 254 }), role: RoleSchema }, { additionalProperties: false }),
      response: { 201: UserSchema, ...problemResponses() },
    },
  }, async (req, reply) => {
    const body = req.body as { email: string; role: Role };
    return runWrite(req, reply, ctxFor(req, services), {
      status: 201,
      run: async (ctx) => {
        const { user, password } = await inviteUser({ ctx, input: body });
        return present(user, password);
      },
      forReplay: (first) => ({ ...first, password: null }),
    });
  });

  app.patch('/users/:id', {
    schema: {
      tags: ['staff administration'], summary: "Change a user's role or reset their password", description: `${ownerOnly} Resetting ends all the user's sessions. The last owner cannot be demoted: \`409 last-owner\`, also when two owners demote each other at the same moment.`,
      params: IdParams,
      body: Type.Object({ role: Type.Optional(RoleSchema), reset_password: Type.Optional(Type.Boolean()) }, { additionalProperties: false }),
      response: { 200: UserSchema, ...problemResponses() },
    },
  }, async (req, reply) => {
    const id = userId(req.params);
    const body = (req.body ?? {}) as { role?: Role; reset_password?: boolean };
    return runWrite(req, reply, ctxFor(req, services), {
      status: 200,
      run: async (ctx) => {
        const { user, password } = await updateUser({ ctx, input: { id, ...body } });
        return present(user, password);
      },
      forReplay: (first) => ({ ...first, password: null }),
    });
  });

  app.delete('/users/:id', {
    schema: {
      tags: ['staff administration'], summary: 'Remove a staff user (their sessions end at once)', description: `${ownerOnly} Nobody removes themselves (\`409 conflict\`); the last owner stays (\`409 last-owner\`).`,
      params: IdParams,
      response: { 200: UserSchema, ...problemResponses() },
    },
  }, async (req, reply) => {
    const id = userId(req.params);
    return runWrite(req, reply, ctxFor(req, services), { status: 200, run: async (ctx) => present(await deleteUser({ ctx, input: { id } })) });
  });
}
