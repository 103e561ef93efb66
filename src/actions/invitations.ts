// Owners invite staff users by email (decision 0082): the invitee follows the emailed link and
// chooses their own password. A link is single-use, stored hashed, and expires; an invitation can
// be resent (a new link, the old one stops) and revoked. Accepting runs as the system on the
// account the link names (acceptInvitation, after invitationCtx found it).
import { readerOf, type Action, type Ctx, type Read, type Services, type TxCtx } from '../core/ctx.ts';
import type { Role } from '../core/tenancy.ts';
import { AppError, invalid, notFound } from '../domain/errors.ts';
import { newId } from '../domain/ids.ts';
import { hashLinkToken, LINK_TOKEN_SHAPE, newLinkToken } from '../domain/link-token.ts';
import { hashPassword } from '../domain/password-hash.ts';
import { findUserByEmail, getUser, insertUser } from '../store/credentials.ts';
import {
  findInvitationByTokenHash,
  findOpenInvitation,
  getInvitation,
  invitationAccountByTokenHash,
  insertInvitation,
  listOpenInvitations,
  markInvitationAccepted,
  renewInvitation,
  revokeInvitation as revokeStored,
  type InvitationRecord,
} from '../store/invitations.ts';
import { getAccount, listBranches } from '../store/tenancy.ts';
import { presentInvitation, type InvitationAcceptanceObject, type InvitationObject } from '../contract/account-schemas.ts';
import { staffLink } from './account-mail.ts';
import { deletionRequestedAt } from '../store/account-deletion.ts';
import { queueMail } from '../mail/queue-mail.ts';
import type { MailLanguage } from '../mail/mail-kind.ts';
import { INVITATION_MAIL } from '../mail/kinds/invitation.ts';
import { passwordProblem } from '../domain/password-policy.ts';
import { requireStaffRole } from './staff-only.ts';
import { systemCtx } from './system-ctx.ts';

export const INVITATION_TTL_MS = 7 * 24 * 3600_000;
const EMAIL = /^[^@\s]+@[^@\s]+\.[^@\s]+$/;
/** One answer for every link that cannot be used, so a link says nothing of why. */
const UNUSABLE = 'This invitation link has expired, was revoked or was already used; ask the owner for a new one.';

export const listInvitations: Read<void, InvitationObject[]> = async ({ ctx }) => {
  requireStaffRole(ctx, 'owner');
  const now = ctx.services.clock.now();
  return (await listOpenInvitations(readerOf(ctx), ctx.accountId)).map((i) => presentInvitation(i, now));
};

async function mailInvitation(ctx: TxCtx, inv: InvitationRecord, token: string): Promise<void> {
  const account = (await getAccount(ctx.tx, ctx.accountId))!;
  await queueMail(ctx, INVITATION_MAIL, {
    to: inv.email,
    lang: inv.language as MailLanguage,
    shop: account.name,
    values: { link: staffLink(ctx.services, 'invitation', token), role: inv.role },
    key: `${inv.id}:${inv.sentAt}`,
    accountId: ctx.accountId,
  });
}

export const inviteByEmail: Action<{ email: string; role: Role; language?: MailLanguage }, InvitationObject> = async ({ ctx, input }) => {
  requireStaffRole(ctx, 'owner');
  const email = input.email.trim().toLowerCase();
  if (!EMAIL.test(email)) throw invalid('/email', 'is not an email address');
  // Emails are unique across the service; say so without telling which account holds it.
  if ((await findUserByEmail(ctx.tx, email)) !== undefined)
    throw new AppError('conflict', 'This email already has a readybell user.', { errors: [{ pointer: '/email', detail: 'is taken' }] });
  if ((await findOpenInvitation(ctx.tx, ctx.accountId, email)) !== undefined)
    throw new AppError('conflict', 'This email has an open invitation: resend or revoke it.', {
      errors: [{ pointer: '/email', detail: 'is invited already' }],
    });
  const now = ctx.services.clock.now();
  const token = newLinkToken();
  const inv: InvitationRecord = {
    id: newId('invitation', now),
    accountId: ctx.accountId,
    email,
    role: input.role,
    tokenHash: hashLinkToken(token),
    language: input.language ?? 'en',
    invitedBy: ctx.actor.kind === 'user' ? ctx.actor.userId : null,
    createdAt: now,
    sentAt: now,
    expiresAt: now + INVITATION_TTL_MS,
    acceptedAt: null,
    revokedAt: null,
    userId: null,
  };
  await insertInvitation(ctx.tx, inv);
  await mailInvitation(ctx, inv, token);
  return presentInvitation(inv, now);
};

async function openInvitation(ctx: TxCtx, id: string): Promise<InvitationRecord> {
  const inv = await getInvitation(ctx.tx, id);
  if (inv === undefined || inv.accountId !== ctx.accountId) throw notFound('invitation');
  if (inv.acceptedAt !== null || inv.revokedAt !== null) throw new AppError('conflict', 'This invitation was already accepted or revoked.');
  return inv;
}

/** A new link and a new expiry; the previous link stops working. */
export const resendInvitation: Action<{ id: string }, InvitationObject> = async ({ ctx, input }) => {
  requireStaffRole(ctx, 'owner');
  const inv = await openInvitation(ctx, input.id);
  const now = ctx.services.clock.now();
  const token = newLinkToken();
  const renewed = { ...inv, tokenHash: hashLinkToken(token), sentAt: now, expiresAt: now + INVITATION_TTL_MS };
  await renewInvitation(ctx.tx, inv.id, renewed.tokenHash, now, renewed.expiresAt);
  await mailInvitation(ctx, renewed, token);
  return presentInvitation(renewed, now);
};

export const revokeInvitation: Action<{ id: string }, InvitationObject> = async ({ ctx, input }) => {
  requireStaffRole(ctx, 'owner');
  const inv = await openInvitation(ctx, input.id);
  const now = ctx.services.clock.now();
  await revokeStored(ctx.tx, inv.id, now);
  return presentInvitation({ ...inv, revokedAt: now }, now);
};

/**
 * The system's ctx on the account an invitation link names (its first branch), for the write that
 * accepts it; the same refusal for every link that cannot be used, found or not.
 */
export async function invitationCtx(services: Services, token: string): Promise<Ctx> {
  if (!LINK_TOKEN_SHAPE.test(token)) throw invalid('/token', UNUSABLE);
  const accountId = await invitationAccountByTokenHash(services.db, hashLinkToken(token));
  const account = accountId === undefined ? undefined : await getAccount(services.db, accountId);
  const branch = account && (await listBranches(services.db, account.id))[0];
  if (branch === undefined) throw invalid('/token', UNUSABLE);
  return systemCtx(services, account!.id, account!.plan, branch.id, 'live', 'invitation');
}

/** Creates the invitee's user with their own password; the link is used up. */
export const acceptInvitation: Action<{ token: string; password: string }, InvitationAcceptanceObject> = async ({ ctx, input }) => {
  // The invitee's password meets what sign-up's does (decision 0081): long enough, not a common one.
  const weak = passwordProblem(input.password);
  if (weak !== null) throw invalid('/password', weak);
  const now = ctx.services.clock.now();
  const inv = await findInvitationByTokenHash(ctx.tx, hashLinkToken(input.token));
  if (inv === undefined || inv.accountId !== ctx.accountId || inv.acceptedAt !== null || inv.revokedAt !== null || now >= inv.expiresAt)
    throw invalid('/token', UNUSABLE);
  if ((await deletionRequestedAt(ctx.tx, inv.accountId)) !== null) throw invalid('/token', UNUSABLE);
  if ((await findUserByEmail(ctx.tx, inv.email)) !== undefined)
    throw new AppError('conflict', 'This email already has a readybell user: sign in with it.');
  const id = newId('user', now);
  await insertUser(ctx.tx, {
    id,
    accountId: inv.accountId,
    email: inv.email,
    role: inv.role,
    passwordHash: await hashPassword(input.password),
    createdAt: now,
    removedAt: null,
  });
  await markInvitationAccepted(ctx.tx, inv.id, id, now);
  const user = (await getUser(ctx.tx, id))!;
  return { object: 'invitation_acceptance', email: user.email, role: user.role };
};
