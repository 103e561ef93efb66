// What the staff page adds to the server: the sign-in route (the one /v1 operation without
// credentials, so it lives outside the authenticated /v1 scope) and the page itself.
import type { FastifyInstance } from 'fastify';
import type { Services } from '../actions/ctx.ts';
import type { RateLimiter } from '../realtime/limiter.ts';
import { registerSignIn } from './routes/v1/sessions.ts';
import { registerStaffApp } from './routes/staff-app.ts';

export { createSessionAuthenticator } from './plugins/session.ts';

export function staffRoutes(services: Services, limiter: RateLimiter): Array<(app: FastifyInstance) => void> {
  return [
    (app) => void app.register(async (scope) => registerSignIn(scope, services, limiter), { prefix: '/v1' }),
    (app) => registerStaffApp(app),
  ];
}
