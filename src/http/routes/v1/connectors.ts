// GET /v1/connectors: the connectors this readybell is built with (connectors/installed.ts, made
// into modules by connectors/module.ts), whether the operator configured each, and its staff
// screen. The staff page draws its connector screens from this answer (decision 0094), so a new
// connector appears there without the page keeping a list of them.
import { Type } from 'typebox';
import type { FastifyInstance } from 'fastify';
import type { Config } from '../../../core/config.ts';
import { Nullable } from '../../../contract/schema-parts.ts';
import { AppError } from '../../../domain/errors.ts';
import { operation, typed } from '../../operation.ts';
import { sessionOf } from '../../plugins/session.ts';

/** What the list needs of an installed module. */
export type ListedModule = {
  readonly name: string;
  readonly kind: 'channel' | 'connector';
  readonly screen?: string;
  configured(config: Config): boolean;
};

export const ConnectorListSchema = Type.Object(
  {
    object: Type.Literal('list'),
    data: Type.Array(
      Type.Object(
        {
          object: Type.Literal('connector'),
          name: Type.String({
            description: 'Its name, as in its paths (/v1/connectors/<name>) and its screen',
            pattern: '^[a-z][a-z0-9-]*$',
            example: 'shopify',
          }),
          configured: Type.Boolean({ description: 'Whether the operator set up its application on this server' }),
          screen: Nullable(Type.String({ description: "The staff page's screen for it", examples: ['/staff/#/settings/shopify'] })),
        },
        { additionalProperties: false },
      ),
    ),
  },
  { additionalProperties: false },
);

export function registerConnectorList(fastify: FastifyInstance, config: Config, modules: readonly ListedModule[]): void {
  const app = typed(fastify);
  const data = modules
    .filter((m) => m.kind === 'connector')
    .map((m) => ({ object: 'connector' as const, name: m.name, configured: m.configured(config), screen: m.screen ?? null }));
  app.get(
    '/connectors',
    {
      schema: operation({
        operationId: 'listConnectors',
        tag: 'Connectors',
        access: 'staff',
        summary: 'List the installed connectors',
        description:
          'The point-of-sale connectors of this server, configured or not, and their staff screens. Staff sessions; API keys get 403.',
        answers: { 200: { description: 'The connectors', schema: ConnectorListSchema } },
      }),
    },
    async (req) => {
      if (sessionOf(req) === null) throw new AppError('forbidden', 'The connectors are listed for the staff page; API keys get 403.');
      return { object: 'list' as const, data };
    },
  );
}
