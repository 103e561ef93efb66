// The /v1 objects the staff page reads, as the OpenAPI document defines them: the types generated
// from /v1/openapi.json (packages/client/src/schema.d.ts), which come from the schemas that
// validate and document the API (src/http/schemas.ts and the route files). Nothing here restates
// a field.
import type { components } from '../../../packages/client/src/schema.d.ts';
import type { Answer } from './api.ts';

type Schemas = components['schemas'];

export type Ticket = Schemas['Ticket'];
export type TicketStatus = Ticket['status'];
export type RingResult = Schemas['RingResult'];
export type Branch = Schemas['Branch'];
export type EscalationStep = Schemas['EscalationStep'];
export type Queue = Schemas['Queue'];
export type WebhookEndpoint = Schemas['WebhookEndpoint'];
export type WebhookDelivery = Schemas['WebhookDelivery'];

/** Objects without a named component: as the operation that reads them answers. */
export type Session = Answer<'getSession'>;
export type Role = Session['user']['role'];
export type ApiKey = Answer<'createApiKey'>;
export type User = Answer<'inviteUser'>;
export type Display = Answer<'createDisplay'>;
export type Announcement = Answer<'createAnnouncement'>;
export type SquareConnection = Answer<'getSquareConnection'>;
export type ShopifyConnection = Answer<'getShopifyConnection'>;
export type InstalledConnector = Answer<'listConnectors'>['data'][number];
export type Invitation = Answer<'createInvitation'>;
export type Billing = Answer<'getBilling'>;

/** The problem document of a failed call. */
export type Problem = Schemas['Problem'] | Offline;
/** The page's own problem when the server cannot be reached. */
type Offline = {
  type: 'about:blank';
  title: string;
  status: 0;
  code: 'network';
  detail: string;
  errors?: undefined;
  ticket_status?: undefined;
};

/**
 * A live update from GET /v1/stream. The document gives the stream as text (server-sent events)
 * and describes its messages in words, so this one shape is the page's own.
 */
export type LiveMessage = { type: string; ticket_id?: string; status?: TicketStatus; display_number?: string; queue?: string };
