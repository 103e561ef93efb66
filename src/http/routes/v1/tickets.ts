import type { FastifyInstance, FastifyRequest } from 'fastify';
import { Type } from 'typebox';
import QRCode from 'qrcode';
import type { Services } from '../../../core/ctx.ts';
import { createTicket } from '../../../actions/create-ticket.ts';
import { presentTicket, ticketUrl } from '../../../contract/present.ts';
import { invalid } from '../../../domain/errors.ts';
import { E164_PATTERN, LIST_LIMIT_MAX } from '../../../domain/validation.ts';
import { TICKET_STATUSES } from '../../../domain/ticket-state.ts';
import type { TicketStatus } from '../../../core/ticket.ts';
import { listTicketPage, readTicket } from '../../../actions/read-tickets.ts';
import type { Ticket } from '../../../core/ticket.ts';
import { QueueName } from '../../../contract/schemas.ts';
import { EXAMPLE_IDS, EXAMPLE_TIME, IdParam, ListOf } from '../../../contract/schema-parts.ts';
import { operation, typed } from '../../operation.ts';
import { EXAMPLE_TICKETS } from '../../../contract/example-objects.ts';
import { runWrite } from '../../write.ts';
import { ctxFor, ticketIdFrom } from './context.ts';

export const CreateTicketBody = Type.Object(
  {
    queue: Type.Optional(QueueName),
    external_ref: Type.Optional(
      Type.String({ minLength: 1, maxLength: 64, description: 'Your own order number; searchable', examples: ['1001'] }),
    ),
    customer_phone: Type.Optional(
      Type.String({
        pattern: E164_PATTERN,
        description: 'E.164, used for SMS only (business plan); erased when the ticket closes',
        examples: ['+33612345678'],
      }),
    ),
    metadata: Type.Optional(
      Type.Record(Type.String({ maxLength: 40 }), Type.String({ maxLength: 500 }), {
        maxProperties: 20,
        description: 'Up to 20 string pairs of your own',
        examples: [{ table: '12' }],
        // TypeBox drops the key schema's maxLength (it becomes patternProperties "^.*$"); this keeps it.
        propertyNames: { minLength: 1, maxLength: 40 },
      }),
    ),
  },
  { additionalProperties: false },
);

export const TicketIdParams = Type.Object({ id: IdParam('ticket') });

const ListQuery = Type.Object(
  {
    queue: Type.Optional(QueueName),
    status: Type.Optional(
      Type.String({
        description: `One status or a comma list of ${TICKET_STATUSES.join(', ')}`,
        maxLength: 100,
        examples: ['created,ready'],
      }),
    ),
    external_ref: Type.Optional(Type.String({ maxLength: 64, description: 'Tickets with this order number', examples: ['1001'] })),
    created_after: Type.Optional(Type.String({ format: 'date-time', examples: [EXAMPLE_TIME] })),
    created_before: Type.Optional(Type.String({ format: 'date-time', examples: [EXAMPLE_TIME] })),
    limit: Type.Optional(Type.Integer({ minimum: 1, maximum: LIST_LIMIT_MAX, default: 20, examples: [20] })),
    starting_after: Type.Optional(
      Type.String({ maxLength: 64, description: 'Cursor: the last ticket id of the previous page', examples: [EXAMPLE_IDS.ticket] }),
    ),
  },
  { additionalProperties: false },
);

const isTicketStatus = (s: string): s is TicketStatus => (TICKET_STATUSES as readonly string[]).includes(s);

/** A date-time query parameter in ms. The schema's format admits a leap second (23:59:60), which Date cannot hold. */
function time(name: string, value: string | undefined): number | undefined {
  if (value === undefined) return undefined;
  const ms = Date.parse(value);
  if (Number.isNaN(ms))
    throw invalid(`/query/${name}`, `${name} must be a date-time such as 2026-11-22T08:00:00Z; leap seconds (:60) are not accepted.`);
  return ms;
}

export async function findTicket(services: Services, req: FastifyRequest, id: string): Promise<Ticket> {
  return readTicket({ ctx: ctxFor(req, services), input: { id: ticketIdFrom(id) } });
}

export function registerTicketRoutes(fastify: FastifyInstance, services: Services): void {
  const app = typed(fastify);
  const { publicUrl } = services.config;

  app.post(
    '/tickets',
    {
      schema: operation({
        operationId: 'createTicket',
        tag: 'Tickets',
        summary: 'Create a ticket',
        description:
          "Gives the ticket its display number (`A-42`: the queue and a count that restarts each business day) and the customer's link (`url`) " +
          "to print as a QR code. Every field is optional: with no body, the ticket goes to the branch's default queue.",
        body: CreateTicketBody,
        answers: { 201: { description: 'The new ticket, `created`', schema: Type.Ref('Ticket'), example: EXAMPLE_TICKETS.created } },
        problems: { 'validation-failed': 'A field is missing, unknown, mistyped or out of range, or the queue does not exist.' },
      }),
    },
    async (req, reply) => {
      return runWrite(req, reply, ctxFor(req, services), { status: 201, commit: createTicket, input: req.body ?? {} });
    },
  );

  app.get(
    '/tickets/:id',
    {
      schema: operation({
        operationId: 'getTicket',
        tag: 'Tickets',
        summary: 'Get a ticket',
        description:
          'The ticket as it is now, with what its customer did. Ids look like `tk_…`; to find a ticket by its display number or your order number, list tickets.',
        params: TicketIdParams,
        answers: { 200: { description: 'The ticket', schema: Type.Ref('Ticket'), example: EXAMPLE_TICKETS.acknowledged } },
      }),
    },
    async (req) => presentTicket(await findTicket(services, req, req.params.id), publicUrl),
  );

  app.get(
    '/tickets',
    {
      schema: operation({
        operationId: 'listTickets',
        tag: 'Tickets',
        summary: 'List tickets',
        description:
          'Newest first, filtered by queue, status, order number and creation time. Page with `starting_after` (the last id you got) while `has_more` is true.',
        querystring: ListQuery,
        answers: {
          200: {
            description: 'A page of tickets',
            schema: ListOf(Type.Ref('Ticket'), 'Newest first'),
            example: { object: 'list', data: [EXAMPLE_TICKETS.ready], has_more: false },
          },
        },
      }),
    },
    async (req) => {
      const ctx = ctxFor(req, services);
      const q = req.query;
      let statuses: TicketStatus[] | undefined;
      if (q.status !== undefined) {
        const named = q.status.split(',').map((s) => s.trim());
        const bad = named.find((s) => !isTicketStatus(s));
        if (bad !== undefined) throw invalid('/query/status', `Unknown status "${bad}"; use ${TICKET_STATUSES.join(', ')}.`);
        statuses = named.filter(isTicketStatus);
      }
      const page = await listTicketPage({
        ctx,
        input: {
          queue: q.queue,
          statuses,
          externalRef: q.external_ref,
          createdAfter: time('created_after', q.created_after),
          createdBefore: time('created_before', q.created_before),
          startingAfter: q.starting_after,
          limit: q.limit ?? 20,
        },
      });
      return { object: 'list', data: page.data.map((t) => presentTicket(t, publicUrl)), has_more: page.hasMore };
    },
  );

  for (const format of ['svg', 'png'] as const) {
    app.get(
      `/tickets/:id/qr.${format}`,
      {
        schema: operation({
          operationId: `getTicketQr${format === 'svg' ? 'Svg' : 'Png'}`,
          tag: 'Tickets',
          summary: `Get the QR code (${format.toUpperCase()})`,
          // Said once, at the SVG; the PNG points there (issue 36 item 14's 250 KB).
          description:
            format === 'svg'
              ? "The customer's link as a QR code, for a POS that cannot draw one: print it on the receipt. It never changes for a ticket, so it is cached for a day."
              : 'The QR code of `getTicketQrSvg`, as a PNG image.',
          params: TicketIdParams,
          answers: {
            200:
              format === 'svg'
                ? { description: 'An SVG image', mediaType: 'image/svg+xml', schema: Type.String({ description: 'SVG markup' }) }
                : {
                    description: 'A PNG image',
                    mediaType: 'image/png',
                    schema: Type.String({ contentMediaType: 'image/png', description: 'PNG bytes' }),
                  },
          },
        }),
      },
      async (req, reply) => {
        const ticket = await findTicket(services, req, req.params.id);
        const url = ticketUrl(publicUrl, ticket.token);
        reply.header('Cache-Control', 'private, max-age=86400, immutable');
        if (format === 'svg') {
          return reply.type('image/svg+xml').send(await QRCode.toString(url, { type: 'svg', errorCorrectionLevel: 'M', margin: 2 }));
        }
        return reply.type('image/png').send(await QRCode.toBuffer(url, { errorCorrectionLevel: 'M', margin: 2, scale: 8 }));
      },
    );
  }
}
