import type { FastifyInstance } from 'fastify';
import { Type } from 'typebox';
import type { Services } from '../../../core/ctx.ts';
import { presentBranch } from '../../../contract/present.ts';
import { readBranch, updateBranchSettings } from '../../../actions/branch.ts';
import { EXAMPLE_LADDER, LadderStepSchema, QueueName, paidSwitchFields } from '../../../contract/schemas.ts';
import { Ref } from '../../../contract/schema-parts.ts';
import { MAX_LADDER_STEPS } from '../../../domain/escalation-ladder.ts';
import { operation, typed } from '../../operation.ts';
import { SUPPORTED_LANGUAGES } from '../../../domain/branch-settings.ts';
import { runWrite } from '../../write.ts';
import { ctxFor } from './context.ts';

const Language = Type.String({ minLength: 2, maxLength: 8, description: `One of ${SUPPORTED_LANGUAGES.join(', ')}`, examples: ['fr'] });
const Message = Type.Union([Type.String({ maxLength: 280, examples: ['Your order is ready at the counter.'] }), Type.Null()]);

export const UpdateBranchBody = Type.Object(
  {
    name: Type.Optional(Type.String({ minLength: 1, maxLength: 100, examples: ['Rue Oberkampf'] })),
    timezone: Type.Optional(
      Type.String({ minLength: 1, maxLength: 64, description: 'IANA time zone, e.g. Europe/Paris', examples: ['Europe/Paris'] }),
    ),
    default_queue: Type.Optional(QueueName),
    expiry_hours: Type.Optional(
      Type.Number({
        minimum: 0.25,
        maximum: 72,
        description:
          'Open tickets expire this long after creation; rounded once, here, to the nearest whole minute (1.0000001 is kept as 1, 0.3 as 18 minutes)',
        examples: [12, 1.5],
      }),
    ),
    reminder_delay_seconds: Type.Optional(
      Type.Integer({
        minimum: 30,
        maximum: 3600,
        description: 'A ready ticket without "On my way" is rung again after this long',
        examples: [120],
      }),
    ),
    reminder_count: Type.Optional(Type.Integer({ minimum: 0, maximum: 5, description: 'How many such reminders at most', examples: [2] })),
    escalation_ladder: Type.Optional(
      Type.Union([
        Type.Array(Ref(LadderStepSchema), {
          maxItems: MAX_LADDER_STEPS,
          description: `Replaces the reminder settings: up to ${MAX_LADDER_STEPS} reminders, each later than the one before; a step with SMS needs the business plan (else 403 plan-required) and SMS on; null: back to the reminder settings`,
          examples: [EXAMPLE_LADDER],
        }),
        Type.Null(),
      ]),
    ),
    voice: Type.Optional(
      Type.Object({ enabled: Type.Optional(Type.Boolean()), language: Type.Optional(Language) }, { additionalProperties: false }),
    ),
    customer_page: Type.Optional(
      Type.Object(
        {
          language: Type.Optional(Language),
          messages: Type.Optional(
            Type.Object(
              { waiting: Type.Optional(Message), ready: Type.Optional(Message), closed: Type.Optional(Message) },
              { additionalProperties: false },
            ),
          ),
          phone_entry: Type.Optional(
            Type.Boolean({
              description: 'The customer page asks for a phone number for SMS fallback (business plan: else 403 plan-required)',
            }),
          ),
          phone_country: Type.Optional(
            Type.Union([
              Type.String({
                pattern: '^[A-Za-z]{2}$',
                description: 'ISO 3166-1 alpha-2: numbers typed without + are read in this country',
                examples: ['GB'],
              }),
              Type.Null(),
            ]),
          ),
        },
        { additionalProperties: false },
      ),
    ),
    ...paidSwitchFields((b) => Type.Optional(b)),
  },
  { additionalProperties: false },
);

export function registerBranchRoutes(fastify: FastifyInstance, services: Services): void {
  const app = typed(fastify);
  app.get(
    '/branch',
    {
      schema: operation({
        operationId: 'getBranch',
        tag: 'Branch',
        summary: 'Get the branch',
        description: 'The branch of the API key (or of the staff session), with its settings.',
        answers: { 200: { description: 'The branch', schema: Type.Ref('Branch') } },
      }),
    },
    async (req) => {
      const ctx = ctxFor(req, services);
      return presentBranch(await readBranch({ ctx, input: undefined }), ctx.plan);
    },
  );

  app.patch(
    '/branch',
    {
      schema: operation({
        operationId: 'updateBranch',
        tag: 'Branch',
        summary: 'Update the branch',
        description:
          'Changes the fields you send and leaves the others; `null` resets a customer page message to the default. The settings shape live tickets too, so they are changed only with a live key (or a manager session in live mode); a test key reads them.',
        body: UpdateBranchBody,
        answers: { 200: { description: 'The branch as it is now', schema: Type.Ref('Branch') } },
        problems: {
          forbidden: 'A test key (use the live key) or a session in test mode; or a staff session without the manager or owner role.',
        },
      }),
    },
    async (req, reply) => {
      return runWrite(req, reply, ctxFor(req, services), {
        status: 200,
        verb: updateBranchSettings,
        input: req.body ?? {},
        present: ({ branch, plan }) => presentBranch(branch, plan),
      });
    },
  );
}
