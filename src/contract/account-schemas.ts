// The objects of invitations, email changes and the account's own zone (decisions 0082, 0083), and
// their presenters, for the verbs that answer them and the routes that document them.
import { Type, type Static } from 'typebox';
import { Id, Nullable, StringEnum, Timestamp } from './schema-parts.ts';
import type { InvitationRecord } from '../store/invitations.ts';

// present.ts's `iso`, restated: present.ts imports schemas.ts, which imports this file.
const iso = (ms: number | null): string | null => (ms === null ? null : new Date(ms).toISOString());

export const LANGUAGE = StringEnum(['en', 'fr', 'es', 'de'], { description: "The mail's language (the staff page's); default en" });

export const InvitationSchema = Type.Object(
  {
    object: Type.Literal('invitation'),
    id: Id('invitation'),
    email: Type.String({ examples: ['sam@example.com'] }),
    role: StringEnum(['owner', 'manager', 'staff']),
    status: StringEnum(['pending', 'expired', 'accepted', 'revoked'], {
      description: 'pending: the link works until expires_at; expired: resend it for a new link',
    }),
    created_at: Timestamp,
    sent_at: Timestamp,
    expires_at: Timestamp,
  },
  { $id: 'Invitation', description: 'An invitation by email; the invitee chooses their own password by following its link' },
);
export type InvitationObject = Static<typeof InvitationSchema>;

export function presentInvitation(i: InvitationRecord, now: number): InvitationObject {
  const status = i.acceptedAt !== null ? 'accepted' : i.revokedAt !== null ? 'revoked' : now >= i.expiresAt ? 'expired' : 'pending';
  return {
    object: 'invitation',
    id: i.id,
    email: i.email,
    role: i.role,
    status,
    created_at: iso(i.createdAt)!,
    sent_at: iso(i.sentAt)!,
    expires_at: iso(i.expiresAt)!,
  };
}

export const InvitationAcceptanceSchema = Type.Object({
  object: Type.Literal('invitation_acceptance'),
  email: Type.String({ description: 'Sign in with this email and the password just chosen', examples: ['sam@example.com'] }),
  role: StringEnum(['owner', 'manager', 'staff']),
});
export type InvitationAcceptanceObject = Static<typeof InvitationAcceptanceSchema>;

export const EmailChangeSchema = Type.Object(
  {
    object: Type.Literal('email_change'),
    email: Type.String({ description: 'The new email', examples: ['sam@example.net'] }),
    status: StringEnum(['awaiting_confirmation', 'confirmed'], {
      description:
        "awaiting_confirmation: a link went to the new address; confirmed: it is the user's email now and the old address was told",
    }),
    expires_at: Nullable(Timestamp),
  },
  { $id: 'EmailChange', description: "A change of a staff user's email, confirmed from the new address" },
);
export type EmailChangeObject = Static<typeof EmailChangeSchema>;

export const AccountSchema = Type.Object(
  {
    object: Type.Literal('account'),
    id: Id('account'),
    name: Type.String({ examples: ['Café Lumière'] }),
    plan: StringEnum(['free', 'pro', 'business']),
    created_at: Timestamp,
    deletion_requested_at: Nullable(Timestamp),
    erase_at: Nullable({ ...Timestamp, description: 'Everything is erased then, unless an owner restores the account before' }),
  },
  { $id: 'Account', description: 'The account: its branches, users and plan, and its deletion if one is under way' },
);
export type AccountObject = Static<typeof AccountSchema>;

export const presentAccount = (a: {
  id: string;
  name: string;
  plan: string;
  createdAt: number;
  deletionRequestedAt: number | null;
  eraseAt: number | null;
}): AccountObject => ({
  object: 'account',
  id: a.id,
  name: a.name,
  plan: a.plan as AccountObject['plan'],
  created_at: iso(a.createdAt)!,
  deletion_requested_at: iso(a.deletionRequestedAt),
  erase_at: iso(a.eraseAt),
});
