import type { FastifyInstance } from 'fastify';
import { Type } from 'typebox';
import type { Services } from '../../../actions/ctx.ts';
import { getAccount, getBranch } from '../../../store/tenancy.ts';
import { presentBranch } from '../../../actions/present.ts';
import { updateBranchSettings } from '../../../actions/branch.ts';
import { problemResponses, QueueName } from '../../schemas.ts';
import { runWrite } from '../../write.ts';
import { ctxFor } from './context.ts';

const Language = Type.String({ minLength: 2, maxLength: 8 });
const Message = Type.Union([Type.String({ maxLength: 280 }), Type.Null()]);

export const UpdateBranchBody = Type.Object(
  {
    name: Type.Optional(Type.String({ minLength: 1, maxLength: 100 })),
    timezone: Type.Optional(Type.String({ minLength: 1, maxLength: 64, description: 'IANA time zone, e.g. Europe/Paris' })),
    default_queue: Type.Optional(QueueName),
    expiry_hours: Type.Optional(Type.Number({ minimum: 0.25, maximum: 72 })),
    reminder_delay_seconds: Type.Optional(Type.Integer({ minimum: 30, maximum: 3600 })),
    reminder_count: Type.Optional(Type.Integer({ minimum: 0, maximum: 5 })),
    voice: Type.Optional(Type.Object({ enabled: Type.Optional(Type.Boolean()), language: Type.Optional(Language) }, { additionalProperties: false })),
    customer_page: Type.Optional(Type.Object({
      language: Type.Optional(Language),
      messages: Type.Optional(Type.Object({ waiting: Type.Optional(Message), ready: Type.Optional(Message), closed: Type.Optional(Message) }, { additionalProperties: false })),
      phone_entry: Type.Optional(Type.Boolean({ description: 'The customer page asks for a phone number for SMS fallback (business plan: else 403 plan-required)' })),
      phone_country: Type.Optional(Type.Union([Type.String({ pattern: '^[A-Za-z]{2}$', description: 'ISO 3166-1 alpha-2: numbers typed without + are read in this country' }), Type.Null()])),
    }, { additionalProperties: false })),
    sms_enabled: Type.Optional(Type.Boolean()),
  },
  { additionalProperties: false },
);

export function registerBranchRoutes(app: FastifyInstance, services: Services): void {
  app.get('/branch', {
    schema: { tags: ['branch'], summary: 'Get the branch of this key', response: { 200: Type.Ref('Branch'), ...problemResponses() } },
  }, async (req) => {
    const ctx = ctxFor(req, services);
    const branch = (await getBranch(services.db, ctx.branchId))!;
    return presentBranch(branch, ctx.plan);
  });

  app.patch('/branch', {
    schema: { tags: ['branch'], summary: 'Update branch settings', body: UpdateBranchBody, response: { 200: Type.Ref('Branch'), ...problemResponses() } },
  }, async (req, reply) => {
    const ctx = ctxFor(req, services);
    return runWrite(req, reply, ctx, {
      status: 200,
      run: async (tx) => {
        const branch = await updateBranchSettings({ ctx: tx, input: (req.body ?? {}) as never });
        const account = (await getAccount(tx.tx, ctx.accountId))!;
        return presentBranch(branch, account.plan);
      },
    });
  });
}
