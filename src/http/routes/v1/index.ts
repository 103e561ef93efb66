import type { FastifyInstance } from 'fastify';
import type { Services } from '../../../actions/ctx.ts';
import { registerBranchRoutes } from './branch.ts';
import { registerQueueRoutes } from './queues.ts';
import { registerTicketRoutes } from './tickets.ts';
import { registerTicketActionRoutes } from './ticket-actions.ts';
import { registerEventRoutes } from './events.ts';
import { registerWebhookEndpointRoutes } from './webhook-endpoints.ts';
import { registerSessionRoutes } from './sessions.ts';
import { registerApiKeyRoutes } from './api-keys.ts';
import { registerUserRoutes } from './users.ts';
import { registerStreamRoute } from './stream.ts';
import { registerDisplayRoutes } from './displays.ts';
import { registerAnnouncementRoutes } from './announcements.ts';
import { registerTestHelperRoutes } from './test-helpers.ts';

export function registerV1Routes(app: FastifyInstance, services: Services): void {
  registerBranchRoutes(app, services);
  registerQueueRoutes(app, services);
  registerTicketRoutes(app, services);
  registerTicketActionRoutes(app, services);
  registerEventRoutes(app, services);
  registerWebhookEndpointRoutes(app, services);
  registerSessionRoutes(app, services);
  registerApiKeyRoutes(app, services);
  registerUserRoutes(app, services);
  registerStreamRoute(app, services);
  registerDisplayRoutes(app, services);
  registerAnnouncementRoutes(app, services);
  registerTestHelperRoutes(app, services);
}
