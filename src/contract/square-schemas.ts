// The Square connector's staff-facing objects (docs/decisions/0073, agreed with the staff page's
// Square screen): the connection, its authorize answer, the merchant's locations, and the PATCH body.
import { Type } from 'typebox';
import { Nullable, StringEnum, Timestamp } from './schema-parts.ts';
import { QUEUE_NAME_PATTERN } from '../domain/validation.ts';

export const SQUARE_STATUSES = ['not_configured', 'not_connected', 'choose_location', 'connected', 'refresh_failed'] as const;

export const SquareConnectionSchema = Type.Object(
  {
    object: Type.Literal('square_connection'),
    status: StringEnum(SQUARE_STATUSES, {
      description:
        '`not_configured`: no Square application on this server; `choose_location`: connected, no location yet; `refresh_failed`: see `last_error`',
    }),
    environment: Nullable(
      StringEnum(['sandbox', 'production'] as const, { description: 'Sandbox orders make test-mode tickets, production orders live ones' }),
    ),
    merchant_id: Nullable(Type.String({ examples: ['ML2PQ8X5R2YKD'] })),
    merchant_name: Nullable(Type.String({ examples: ['Corner Café'] })),
    location: Nullable(Type.Object({ id: Type.String({ examples: ['L88917AVBK2S5'] }), name: Type.String({ examples: ['Main Street'] }) })),
    queue: Nullable(
      Type.String({ description: "The queue Square orders' tickets go to; null: the branch's default queue", examples: ['A'] }),
    ),
    mark_prepared: Type.Boolean({ description: "Whether readybell's ready marks the order's pickup PREPARED in Square" }),
    connected_at: Nullable(Timestamp),
    token_expires_at: Nullable(Timestamp),
    last_error: Nullable(
      Type.String({
        description: 'What went wrong last, for the owner',
        examples: ['Token refresh failed: ObtainToken: 401 UNAUTHORIZED The refresh token was revoked.'],
      }),
    ),
  },
  { additionalProperties: false, $id: 'SquareConnection', description: "The branch's connection to a Square location" },
);

export const SquareAuthorizeSchema = Type.Object(
  {
    authorize_url: Type.String({
      examples: ['https://connect.squareup.com/oauth2/authorize?client_id=sq0idp-x&scope=ORDERS_READ&session=false&state=s'],
    }),
  },
  { additionalProperties: false },
);

export const SquareLocationListSchema = Type.Object(
  {
    object: Type.Literal('list'),
    data: Type.Array(
      Type.Object(
        {
          id: Type.String({ examples: ['L88917AVBK2S5'] }),
          name: Type.String({ examples: ['Main Street'] }),
          address: Nullable(Type.String({ examples: ['1 Main Street, Springfield'] })),
          status: Type.String({ examples: ['ACTIVE'] }),
        },
        { additionalProperties: false },
      ),
    ),
  },
  { additionalProperties: false },
);

export const SquareSettingsBody = Type.Object(
  {
    location_id: Type.Optional(Type.String({ minLength: 1, maxLength: 64, examples: ['L88917AVBK2S5'] })),
    queue: Type.Optional(Nullable(Type.String({ pattern: QUEUE_NAME_PATTERN, examples: ['A'] }))),
    mark_prepared: Type.Optional(Type.Boolean()),
  },
  { additionalProperties: false },
);
