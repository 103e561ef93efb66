// What a ticket's Google Wallet pass says: one generic class per issuer (readybell's passes look
// alike; each object carries its shop's name) and one generic object per ticket, with the shop's
// name, the display number, the status and the ticket link as a QR code. Nothing about the customer
// (PRODUCT.md §14): no phone, no external reference, no metadata. Google's GenericObject reference:
// developers.google.com/wallet/reference/rest/v1/genericobject.
import type { RingBranch } from '../../../core/ring.ts';
import type { Ticket, TicketStatus } from '../../../core/ticket.ts';
import { customerTexts } from '../../../i18n/customer-texts.ts';
import { ringTexts, shortBranchName } from '../../../i18n/ring-texts.ts';
import { isLanguage, type Language } from '../../../i18n/language.ts';

export type GoogleObjectState = 'ACTIVE' | 'COMPLETED' | 'EXPIRED' | 'INACTIVE';
type Localized = { defaultValue: { language: string; value: string } };

/** The pass's class: `<issuer id>.readybell`, shared by every pass of the issuer. */
export const passClassId = (issuerId: string): string => `${issuerId}.readybell`;
export const genericClass = (issuerId: string): { id: string } => ({ id: passClassId(issuerId) });

/** The state a closed ticket's pass takes; open tickets' passes are ACTIVE. */
const STATE: Record<TicketStatus, GoogleObjectState> = {
  created: 'ACTIVE',
  ready: 'ACTIVE',
  collected: 'COMPLETED',
  cancelled: 'INACTIVE',
  expired: 'EXPIRED',
};
export const objectState = (status: TicketStatus): GoogleObjectState => STATE[status];

/** A ready ticket's pass is green like the customer page's ring; otherwise the page's dark blue. */
const COLOUR = { ready: '#0b6e4f', other: '#1f2a44' };

/** The pass speaks the customer page's language (branch setting), as a push does. */
const passLanguage = (branch: RingBranch): Language => {
  const lang = branch.settings.customer_page.language;
  return isLanguage(lang) ? lang : 'en';
};

const text = (language: string, value: string): Localized => ({ defaultValue: { language, value } });

/** The parts of the object that follow the ticket: sent whole at save time, and patched on each change. */
export function objectFields(ticket: Ticket, branch: RingBranch) {
  const language = passLanguage(branch);
  const t = customerTexts(language).t;
  const status = t(`heading.${ticket.status}`);
  return {
    state: objectState(ticket.status),
    hexBackgroundColor: ticket.status === 'ready' ? COLOUR.ready : COLOUR.other,
    // The subheader is on the card's front, above the number; the text module below it says what to
    // do. A waiting ticket has nothing to do yet (the page's "keep this page open" is not the pass's).
    subheader: text(language, status),
    textModulesData: ticket.status === 'created' ? [] : [{ id: 'status', header: status, body: t(`detail.${ticket.status}`) }],
  };
}

/** The whole object, as the save link and the insert at link time carry it. */
export function genericObject(objectId: string, issuerId: string, ticket: Ticket, branch: RingBranch, ticketUrl: string) {
  const language = passLanguage(branch);
  return {
    id: objectId,
    classId: passClassId(issuerId),
    cardTitle: text(language, branch.name),
    header: text(language, ticket.displayNumber),
    barcode: { type: 'QR_CODE', value: ticketUrl, alternateText: ticket.displayNumber },
    linksModuleData: { uris: [{ id: 'ticket', uri: ticketUrl, description: ticket.displayNumber }] },
    // Google hides a pass past its interval: the ticket expires then anyway.
    validTimeInterval: { end: { date: new Date(ticket.expiresAt).toISOString() } },
    ...objectFields(ticket, branch),
  };
}

/**
 * The message a ring adds: what a push says (src/i18n/ring-texts.ts), notifying or not. Its id is
 * the ring's, so the pass's message list names the ring it came from.
 */
export function ringMessage(ringId: string, ticket: Ticket, branch: RingBranch, notify: boolean) {
  const texts = ringTexts(passLanguage(branch));
  return {
    id: ringId,
    header: texts.title(ticket.displayNumber),
    body: texts.body(shortBranchName(branch.name)),
    messageType: notify ? 'TEXT_AND_NOTIFY' : 'TEXT',
  };
}
