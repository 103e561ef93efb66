// The yardstick the create route is held against: the same HTTP stack and the same body
// validation as POST /v1/tickets, and nothing else (no auth, store, rate limit or logging).
// The gap between this and the real route is what readybell's own work costs.
import Fastify from 'fastify';

const QUEUE_NAME_PATTERN = '^[A-Za-z0-9_]{1,16}$';
const E164_PATTERN = '^\\+[1-9][0-9]{6,14}$';

const createBody = {
  type: 'object',
  additionalProperties: false,
  properties: {
    queue: { type: 'string', pattern: QUEUE_NAME_PATTERN },
    external_ref: { type: 'string', maxLength: 64 },
    customer_phone: { type: 'string', pattern: E164_PATTERN },
    metadata: {
      type: 'object',
      maxProperties: 20,
      additionalProperties: { type: 'string' },
    },
  },
} as const;

// Fastify's default Ajv strips unknown fields instead of rejecting them; the real route rejects
// them (422), so the baseline must do the same work.
const app = Fastify({
  logger: false,
  ajv: { customOptions: { allErrors: true, removeAdditional: false, coerceTypes: false, useDefaults: true } },
});

let seq = 0;
app.post('/v1/tickets', { schema: { body: createBody } }, async (request, reply) => {
  const body = request.body as { queue?: string; external_ref?: string };
  seq += 1;
  const queue = body.queue ?? 'A';
  return reply.code(201).send({
    object: 'ticket',
    id: `tk_baseline${seq}`,
    display_number: `${queue}-${seq}`,
    status: 'created',
    external_ref: body.external_ref ?? null,
  });
});

const port = Number(process.env['PORT'] ?? 3100);
const host = process.env['HOST'] ?? '127.0.0.1';
await app.listen({ port, host });

for (const signal of ['SIGTERM', 'SIGINT'] as const) {
  process.once(signal, () => {
    void app.close().then(() => process.exit(0));
  });
}
