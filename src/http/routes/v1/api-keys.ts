// /v1/api_keys: owners manage the branch's keys from the staff page. API keys get 403: a key
// cannot mint or revoke keys (PRODUCT.md §3).
import type { FastifyInstance } from 'fastify';
import { Type } from 'typebox';
import type { Services } from '../../../core/ctx.ts';
import { createKey, listKeys, revokeKey } from '../../../actions/api-keys.ts';
import { iso } from '../../../contract/present.ts';
import { notFound } from '../../../domain/errors.ts';
import { isId } from '../../../domain/ids.ts';
import { IdParam, ListOf, Ref, StringEnum } from '../../../contract/schema-parts.ts';
import { ApiKeySchema, type ApiKeyObject } from '../../../contract/staff-schemas.ts';
import { operation, typed } from '../../operation.ts';
import { runWrite } from '../../write.ts';
import { ctxFor } from './context.ts';

/** A key as the key verbs answer it. */
type ApiKeyRecord = Awaited<ReturnType<typeof listKeys>>[number];

const present = (k: ApiKeyRecord, secret: string | null = null): ApiKeyObject => ({
  object: 'api_key',
  id: k.id,
  name: k.name,
  mode: k.mode,
  branch: k.branchId,
  redacted: `rk_${k.mode}_…${k.last4}`,
  created_at: iso(k.createdAt)!,
  last_used_at: iso(k.lastUsedAt),
  revoked_at: iso(k.revokedAt),
  secret,
});

const ownerOnly = 'Owner role, staff session only (API keys get 403).';

export function registerApiKeyRoutes(fastify: FastifyInstance, services: Services): void {
  const app = typed(fastify);
  app.get(
    '/api_keys',
    {
      schema: operation({
        operationId: 'listApiKeys',
        tag: 'Staff administration',
        summary: 'List API keys',
        access: 'staff',
        description: `The branch's keys, revoked ones included, never in full. ${ownerOnly}`,
        answers: { 200: { description: 'Every key', schema: ListOf(Ref(ApiKeySchema), 'Newest first') } },
      }),
    },
    async (req) => ({
      object: 'list',
      data: (await listKeys({ ctx: ctxFor(req, services), input: undefined })).map((k) => present(k)),
      has_more: false,
    }),
  );

  app.post(
    '/api_keys',
    {
      schema: operation({
        operationId: 'createApiKey',
        tag: 'Staff administration',
        summary: 'Create an API key',
        access: 'staff',
        description: `The full key is in this answer only. ${ownerOnly}`,
        body: Type.Object(
          {
            mode: StringEnum(['live', 'test'], { description: '`test` keys act on test data only' }),
            name: Type.Optional(Type.String({ maxLength: 100, examples: ['Counter POS'] })),
          },
          { additionalProperties: false },
        ),
        answers: { 201: { description: 'The key, with its `secret`', schema: Ref(ApiKeySchema) } },
        problems: { 'plan-required': 'The free plan has no API access, so no API keys.' },
      }),
    },
    async (req, reply) => {
      const body = req.body;
      return runWrite(req, reply, ctxFor(req, services), {
        status: 201,
        verb: createKey,
        input: body,
        present: ({ record, secret }) => present(record, secret),
        forReplay: (first) => ({ ...first, secret: null }),
      });
    },
  );

  app.delete(
    '/api_keys/:id',
    {
      schema: operation({
        operationId: 'revokeApiKey',
        tag: 'Staff administration',
        summary: 'Revoke an API key',
        access: 'staff',
        description: `Its next request gets \`401 invalid-api-key\`. ${ownerOnly}`,
        params: Type.Object({ id: IdParam('key') }),
        answers: { 200: { description: 'The key, revoked', schema: Ref(ApiKeySchema) } },
      }),
    },
    async (req, reply) => {
      const { id } = req.params;
      if (!isId('key', id)) throw notFound('API key');
      return runWrite(req, reply, ctxFor(req, services), {
        status: 200,
        verb: revokeKey,
        input: { id },
        present: (record) => present(record),
      });
    },
  );
}
