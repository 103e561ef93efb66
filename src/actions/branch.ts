import { unknownQueue } from './queues.ts';
import { readerOf, type Action, type Read } from '../core/ctx.ts';
import type { Plan } from '../core/tenancy.ts';
import { invalid, AppError } from '../domain/errors.ts';
import { isValidTimeZone } from '../domain/local-time.ts';
import {
  anyPaidChannelOn,
  applyPatch,
  roundExpiryHours,
  SUPPORTED_LANGUAGES,
  type BranchSettingsPatch,
} from '../domain/branch-settings.ts';
import { isPhoneCountry } from '../domain/customer-phone.ts';
import { firstTextingStep, ladderFault } from '../domain/escalation-ladder.ts';
import { planHasPaidChannels } from '../domain/ring-policy.ts';
import { PAID_SWITCH_NAMES } from '../core/channel-catalogue.ts';
import { getAccount, getBranch, getBranchForUpdate, getQueue, updateBranch, type Branch } from '../store/tenancy.ts';
import { requireLiveMode, requireRole } from './roles.ts';
import { forgetTimeZone } from '../store/insights-rollups.ts';

/** The ctx's branch with its settings; every credential reads its own branch. */
export const readBranch: Read<void, Branch> = async ({ ctx }) => (await getBranch(readerOf(ctx), ctx.branchId))!;

/** The plan the account is on now, as stored (a cached credential may still carry the one before a change). */
export const readAccountPlan: Read<void, Plan> = async ({ ctx }) => (await getAccount(readerOf(ctx), ctx.accountId))!.plan;

export type UpdateBranchInput = BranchSettingsPatch & { name?: string; timezone?: string; default_queue?: string };

/** The branch as it now is, with the account's plan as stored (what the branch's object shows). */
export const updateBranchSettings: Action<UpdateBranchInput, { branch: Branch; plan: Plan }> = async ({ ctx, input }) => {
  requireRole(ctx, 'manager');
  requireLiveMode(ctx);
  const branch = await getBranchForUpdate(ctx.tx, ctx.branchId);
  if (branch === undefined) throw new AppError('not-found', 'No such branch.');
  const { name, timezone, default_queue, ...settings } = input;
  if (timezone !== undefined && !isValidTimeZone(timezone))
    throw invalid('/timezone', `"${timezone}" is not an IANA time zone such as Europe/Paris.`);
  if (default_queue !== undefined && (await getQueue(ctx.tx, branch.id, default_queue)) === undefined) {
    throw await unknownQueue(ctx.tx, branch.id, default_queue, '/default_queue');
  }
  for (const [pointer, lang] of [
    ['/voice/language', settings.voice?.language],
    ['/customer_page/language', settings.customer_page?.language],
  ] as const) {
    if (lang !== undefined && !(SUPPORTED_LANGUAGES as readonly string[]).includes(lang)) {
      throw invalid(pointer, `Language must be one of ${SUPPORTED_LANGUAGES.join(', ')}.`);
    }
  }
  // Turning it off stays possible on any plan (an account that lost the business plan).
  if (settings.customer_page?.phone_entry === true && !planHasPaidChannels(ctx.plan)) {
    throw new AppError('plan-required', 'Customers can give a phone number for SMS only on the business plan, which includes SMS.');
  }
  const ladder = settings.escalation_ladder;
  if (ladder !== undefined && ladder !== null) {
    const fault = ladderFault(ladder);
    if (fault !== null) throw invalid(`/escalation_ladder${fault.pointer}`, fault.detail);
    const texting = firstTextingStep(ladder);
    if (texting >= 0 && !planHasPaidChannels(ctx.plan)) {
      throw new AppError(
        'plan-required',
        'A ladder step that texts the customer needs the business plan, which includes SMS; use "sms": "never".',
      );
    }
    // The step's paid setting covers every paid channel: one of them must be on.
    if (texting >= 0 && !anyPaidChannelOn(applyPatch(branch.settings, settings))) {
      throw invalid(
        `/escalation_ladder/${texting}/sms`,
        `No paid channel is on for this branch (${PAID_SWITCH_NAMES.join(', ')}): turn one on, or use "never".`,
      );
    }
  }
  let patch = settings.expiry_hours === undefined ? settings : { ...settings, expiry_hours: roundExpiryHours(settings.expiry_hours) };
  const country = settings.customer_page?.phone_country;
  if (typeof country === 'string') {
    const code = country.toUpperCase();
    if (!isPhoneCountry(code))
      throw invalid(
        '/customer_page/phone_country',
        `"${country}" is not a country code with phone numbers (ISO 3166-1 alpha-2, such as GB or FR).`,
      );
    patch = { ...patch, customer_page: { ...settings.customer_page, phone_country: code } };
  }
  const updated: Branch = {
    ...branch,
    name: name ?? branch.name,
    timezone: timezone ?? branch.timezone,
    defaultQueue: default_queue ?? branch.defaultQueue,
    settings: applyPatch(branch.settings, patch),
    updatedAt: ctx.services.clock.now(),
  };
  await updateBranch(ctx.tx, updated);
  ctx.tx.afterCommit(() => forgetTimeZone(branch.id));
  return { branch: updated, plan: await readAccountPlan({ ctx, input: undefined }) };
};
