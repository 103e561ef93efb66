// The Shopify connector's staff-facing objects: the connection, the authorize body and answer, the
// shop's locations, and the PATCH body. Declared by the connector (its `schemas`), not the contract.
import { Type } from 'typebox';
import { Nullable, StringEnum, Timestamp } from '../../contract/schema-parts.ts';
import { QUEUE_NAME_PATTERN } from '../../domain/validation.ts';

const LocationId = Type.String({ minLength: 1, maxLength: 200, examples: ['gid://shopify/Location/64157007905'] });

export const ShopifyConnectionSchema = Type.Object(
  {
    object: Type.Literal('shopify_connection'),
    status: StringEnum(['not_configured', 'not_connected', 'choose_location', 'connected'] as const, {
      description: '`not_configured`: no Shopify app on this server; `choose_location`: connected, no location yet',
    }),
    shop: Nullable(Type.String({ examples: ['corner-cafe.myshopify.com'] })),
    shop_name: Nullable(Type.String({ examples: ['Corner Café'] })),
    livemode: Nullable(Type.Boolean({ description: "A development store's orders make test-mode tickets, any other shop's live ones" })),
    location: Nullable(Type.Object({ id: LocationId, name: Type.String({ examples: ['Main Street'] }) })),
    queue: Nullable(
      Type.String({ description: "The queue Shopify orders' tickets go to; null: the branch's default queue", examples: ['A'] }),
    ),
    mark_prepared: Type.Boolean({ description: "Whether readybell's ready marks the order's local pickup prepared in Shopify" }),
    connected_at: Nullable(Timestamp),
  },
  { additionalProperties: false, $id: 'ShopifyConnection', description: "The branch's connection to a Shopify location" },
);

export const ShopifyAuthorizeBody = Type.Object(
  {
    shop: Type.String({
      minLength: 1,
      maxLength: 100,
      description: "The store's myshopify.com domain",
      examples: ['corner-cafe.myshopify.com'],
    }),
  },
  { additionalProperties: false },
);

export const ShopifyAuthorizeSchema = Type.Object(
  {
    authorize_url: Type.String({
      examples: ['https://corner-cafe.myshopify.com/admin/oauth/authorize?client_id=abc&scope=read_orders&state=s'],
    }),
  },
  { additionalProperties: false },
);

export const ShopifyLocationListSchema = Type.Object(
  {
    object: Type.Literal('list'),
    data: Type.Array(
      Type.Object(
        { id: LocationId, name: Type.String({ examples: ['Main Street'] }), active: Type.Boolean() },
        { additionalProperties: false },
      ),
    ),
  },
  { additionalProperties: false },
);

export const ShopifySettingsBody = Type.Object(
  {
    location_id: Type.Optional(LocationId),
    queue: Type.Optional(Nullable(Type.String({ pattern: QUEUE_NAME_PATTERN, examples: ['A'] }))),
    mark_prepared: Type.Optional(Type.Boolean()),
  },
  { additionalProperties: false },
);
