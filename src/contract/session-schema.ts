// The staff page's session object (GET /v1/session and the sign-in and branch-switch answers),
// apart from its routes so that the action that builds it (actions/staff-session.ts) can name its
// type without importing the routes that call it.
import { Type, type Static } from 'typebox';
import { EXAMPLE_TIME, Id, StringEnum } from './schema-parts.ts';

const BranchName = Type.String({ examples: ['Rue Oberkampf'] });
const Ident = Type.Object({ id: Id('branch'), name: BranchName });
export const SessionSchema = Type.Object(
  {
    object: Type.Literal('session'),
    user: Type.Object({
      id: Id('user'),
      email: Type.String({ examples: ['owner@example.com'] }),
      role: StringEnum(['owner', 'manager', 'staff']),
      email_verified: Type.Boolean({
        description:
          'Whether the user has followed an emailed verification link; live API keys wait for it (POST /v1/session/verification_email sends one)',
      }),
    }),
    account: Type.Object({
      id: Id('account'),
      name: Type.String({ examples: ['Café Lumière'] }),
      plan: StringEnum(['free', 'pro', 'business']),
      api_access: Type.Boolean({ description: 'false on the free plan: API keys and webhooks need pro or business' }),
    }),
    branch: Type.Object(
      { id: Id('branch'), name: BranchName, timezone: Type.String({ examples: ['Europe/Paris'] }) },
      { description: 'The branch this session acts on' },
    ),
    branches: Type.Array(Ident, { description: "All branches of the user's account; switch with POST /v1/session/branch" }),
    mode: StringEnum(['live', 'test'], {
      description:
        'The mode this request acted in. A session has no mode of its own: each request sends `Readybell-Mode: test` to act on test data (as an rk_test_ key does), or nothing for live.',
    }),
    csrf_token: Type.String({
      description: 'Send as X-CSRF-Token on every POST, PATCH and DELETE made with the session cookie',
      examples: ['q8ZtWm3vR1xYc5NbL7pK2sHd9fGj4aE6'],
    }),
    expires_at: Type.String({ format: 'date-time', description: 'Absolute end of the session', examples: [EXAMPLE_TIME] }),
    idle_timeout_seconds: Type.Integer({ description: 'The session ends after this long without a request', examples: [43200] }),
  },
  // Named, so the three operations that answer with it refer to it instead of repeating it.
  { $id: 'Session', description: "A staff page's session" },
);

export type SessionObject = Static<typeof SessionSchema>;
