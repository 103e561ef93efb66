// The staff administration's objects (users, API keys, display boards, announcements), named
// components of the document: each is answered by several operations, and written out in each it
// cost the document and every client generated from it a copy (issue 36 item 14).
import { Type, type Static } from 'typebox';
import { Id, Nullable, StringEnum, Timestamp } from './schema-parts.ts';

export const RoleSchema = StringEnum(['owner', 'manager', 'staff'], {
  description: 'owner: everything (keys, users, webhooks); manager: queues, displays, settings; staff: tickets',
});

export const UserSchema = Type.Object(
  {
    object: Type.Literal('user'),
    id: Id('user'),
    email: Type.String({ examples: ['sam@example.com'] }),
    role: RoleSchema,
    created_at: Timestamp,
    removed_at: Nullable(Timestamp),
    password: Nullable(
      Type.String({
        description:
          'A one-time password: only in the answer that invited the user or reset the password, never in a replay. Hand it over now.',
        examples: ['tulip-quarry-ember-7'],
      }),
    ),
  },
  { $id: 'User', description: 'A staff user of the account' },
);

export const ApiKeySchema = Type.Object(
  {
    object: Type.Literal('api_key'),
    id: Id('key'),
    name: Nullable(Type.String({ examples: ['Counter POS'] })),
    mode: StringEnum(['live', 'test']),
    branch: Id('branch'),
    redacted: Type.String({ description: 'Prefix and last four characters, e.g. rk_live_…a1B2', examples: ['rk_live_…a1B2'] }),
    created_at: Timestamp,
    last_used_at: Nullable(Timestamp),
    revoked_at: Nullable(Timestamp),
    secret: Nullable(
      Type.String({
        description: 'The full key: only in the answer that created it (not even in an idempotent replay of that answer). Store it now.',
        examples: ['rk_live_7Qm2ZxV9cT4kLp8WnR3sYb6HdJf1a1B2'],
      }),
    ),
  },
  { $id: 'ApiKey', description: "A branch's API key, never in full after its creation" },
);

export const DisplaySchema = Type.Object(
  {
    object: Type.Literal('display'),
    id: Id('display'),
    name: Type.String({ examples: ['Counter TV'] }),
    queues: Type.Array(Type.String({ examples: ['A'] }), { description: 'Queues shown; empty: every queue of the branch' }),
    voice: Type.Boolean({ description: 'Whether the board calls numbers out loud' }),
    url: Type.String({
      format: 'uri',
      description: 'The board link to open on the TV (a secret: anyone with it sees the numbers)',
      examples: ['https://pickup.example.com/board/Vb7Qk2mZr9TxLp4WcN8sHd3FyJ6gA1eU'],
    }),
    livemode: Type.Boolean(),
    created_at: Timestamp,
  },
  { $id: 'Display', description: 'A display board link' },
);

export const AnnouncementSchema = Type.Object(
  {
    object: Type.Literal('announcement'),
    id: Id('announcement'),
    message: Type.String({ examples: ['The kitchen is running 10 minutes late'] }),
    livemode: Type.Boolean(),
    created_at: Timestamp,
    expires_at: Timestamp,
  },
  { $id: 'Announcement', description: 'A message shown on waiting customer pages and boards' },
);

export type UserObject = Static<typeof UserSchema>;
export type ApiKeyObject = Static<typeof ApiKeySchema>;
export type DisplayObject = Static<typeof DisplaySchema>;
export type AnnouncementObject = Static<typeof AnnouncementSchema>;
