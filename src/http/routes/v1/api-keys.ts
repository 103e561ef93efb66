// /v1/api_keys: owners manage the branch's keys from the staff page. API keys get 403: a key
// cannot mint or revoke keys (PRODUCT.md §3).
import type { FastifyInstance } from 'fastify';
import { Type } from 'typebox';
import type { Services } from '../../../actions/ctx.ts';
import { createKey, listKeys, revokeKey } from '../../../actions/api-keys.ts';
import { iso } from '../../../actions/present.ts';
import { notFound } from '../../../domain/errors.ts';
import { isId } from '../../../domain/ids.ts';
import type { ApiKeyRecord } from '../../../store/credentials.ts';
import { Nullable, problemResponses, Timestamp } from '../../schemas.ts';
import { runWrite } from '../../write.ts';
import { ctxFor } from './context.ts';

const ApiKeySchema = Type.Object({
  object: Type.Literal('api_key'),
  id: Type.String({ pattern: '^key_' }),
  name: Nullable(Type.String()),
  mode: Type.Union([Type.Literal('live'), Type.Literal('test')]),
  branch: Type.String(),
  redacted: Type.String({ description: 'Prefix and last four characters, e.g. rk_live_…a1B2', examples: ['rk_live_…a1B2'] }),
  created_at: Timestamp,
  last_used_at: Nullable(Timestamp),
  revoked_at: Nullable(Timestamp),
  secret: Nullable(Type.String({ description: 'The full key: only in the answer that created it (not even in an idempotent replay of that answer). Store it now.' })),
});

const present = (k: ApiKeyRecord, secret: string | null = null) => ({
  object: 'api_key' as const, id: k.id, name: k.name, mode: k.mode, branch: k.branchId, redacted: `rk_${k.mode}_…${k.last4}`,
  created_at: iso(k.createdAt)!, last_used_at: iso(k.lastUsedAt), revoked_at: iso(k.revokedAt), secret,
});

const ownerOnly = 'Owner role, staff session only (API keys get 403).';

export function registerApiKeyRoutes(app: FastifyInstance, services: Services): void {
  app.get('/api_keys', {
    schema: {
      tags: ['staff administration'], summary: "List the branch's API keys", description: ownerOnly,
      response: { 200: Type.Object({ object: Type.Literal('list'), data: Type.Array(ApiKeySchema), has_more: Type.Boolean() }), ...problemResponses() },
    },
  }, async (req) => ({ object: 'list', data: (await listKeys(ctxFor(req, services))).map((k) => present(k)), has_more: false }));

  app.post('/api_keys', {
    schema: {
      tags: ['staff administration'], summary: 'Create an API key (the full key is shown once)', description: `${ownerOnly} Not on the free plan (403 plan-required).`,
      body: Type.Object({
        mode: Type.Union([Type.Literal('live'), Type.Literal('test')]),
        name: Type.Optional(Type.String({ maxLength: 100 })),
      }, { additionalProperties: false }),
      response: { 201: ApiKeySchema, ...problemResponses() },
    },
  }, async (req, reply) => {
    const body = req.body as { mode: 'live' | 'test'; name?: string };
    return runWrite(req, reply, ctxFor(req, services), {
      status: 201,
      run: async (ctx) => {
        const { record, secret } = await createKey({ ctx, input: body });
        return present(record, secret);
      },
      forReplay: (first) => ({ ...first, secret: null }),
    });
  });

  app.delete('/api_keys/:id', {
    schema: {
      tags: ['staff administration'], summary: 'Revoke an API key (effective on its next request)', description: ownerOnly,
      params: Type.Object({ id: Type.String({ maxLength: 64 }) }),
      response: { 200: ApiKeySchema, ...problemResponses() },
    },
  }, async (req, reply) => {
    const { id } = req.params as { id: string };
    if (!isId('key', id)) throw notFound('API key');
    return runWrite(req, reply, ctxFor(req, services), { status: 200, run: async (ctx) => present(await revokeKey({ ctx, input: { id } })) });
  });
}
