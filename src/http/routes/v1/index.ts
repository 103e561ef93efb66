import type { FastifyInstance } from 'fastify';
import type { Services } from '../../../actions/ctx.ts';
import { registerBranchRoutes } from './branch.ts';
import { registerQueueRoutes } from './queues.ts';
import { registerTicketRoutes } from './tickets.ts';
import { registerTicketActionRoutes } from './ticket-actions.ts';
import { registerEventRoutes } from './events.ts';

export function registerV1Routes(app: FastifyInstance, services: Services): void {
  registerBranchRoutes(app, services);
  registerQueueRoutes(app, services);
  registerTicketRoutes(app, services);
  registerTicketActionRoutes(app, services);
  registerEventRoutes(app, services);
}
