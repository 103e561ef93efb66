// The ticket as an Apple Wallet pass (PRODUCT.md §14, docs/wallet.md): a signed .pkpass built with
// passkit-generator from the ticket as it is now. The shop's name and icon, the display number, the
// status (with a changeMessage, so that its change on a ring shows on the lock screen) and the
// ticket link as a QR code; no personal data. Signing it is sign-pass.ts's, on a signing thread. The same builder answers the customer's "Add to
// Apple Wallet" and the device's "latest pass" (PassKit web service), so both always agree.
import type { AppleWalletConfig } from '../../../core/config.ts';
import type { Ticket } from '../../../core/ticket.ts';
import type { Language } from '../../../i18n/language.ts';
import { customerTexts } from '../../../i18n/customer-texts.ts';
import { ticketUrl } from '../../../contract/present.ts';

/** Where Apple's web service paths (`/v1/devices/…`, `/v1/passes/…`) live: apart from the API's /v1. */
export const APPLE_WEB_SERVICE_PATH = '/wallet/apple';
export const PKPASS_TYPE = 'application/vnd.apple.pkpass';

export type PassContent = {
  ticket: Ticket;
  shop: string;
  lang: Language;
  serialNumber: string;
  authenticationToken: string;
  publicUrl: string;
};

/** The status line: what the customer page's heading says, numbered on rings after the first so each one notifies. */
export function passStatus(ticket: Ticket, lang: Language): string {
  const heading = customerTexts(lang).t(`heading.${ticket.status}`);
  return ticket.status === 'ready' && ticket.rings > 1 ? `${heading} (${ticket.rings})` : heading;
}

/** pass.json, as Wallet reads it (Apple's PassKit "Pass" reference). */
export function passJson(config: AppleWalletConfig, c: PassContent): Record<string, unknown> {
  const { ticket } = c;
  const texts = customerTexts(c.lang);
  const link = ticketUrl(c.publicUrl, ticket.token);
  return {
    formatVersion: 1,
    passTypeIdentifier: config.passTypeId,
    teamIdentifier: config.teamId,
    serialNumber: c.serialNumber,
    authenticationToken: c.authenticationToken,
    webServiceURL: `${c.publicUrl}${APPLE_WEB_SERVICE_PATH}`,
    organizationName: c.shop,
    description: `${c.shop} ${ticket.displayNumber}`,
    backgroundColor: 'rgb(255, 214, 10)',
    foregroundColor: 'rgb(17, 17, 17)',
    labelColor: 'rgb(60, 60, 60)',
    expirationDate: new Date(ticket.expiresAt).toISOString(),
    ...(ticket.closedAt === null ? {} : { voided: true }),
    sharingProhibited: true,
    generic: {
      headerFields: [{ key: 'shop', label: '', value: c.shop }],
      primaryFields: [{ key: 'number', label: texts.t('yourNumber'), value: ticket.displayNumber }],
      secondaryFields: [{ key: 'status', label: '', value: passStatus(ticket, c.lang), changeMessage: `${ticket.displayNumber}: %@` }],
      backFields: [{ key: 'link', label: c.shop, value: link }],
    },
    barcodes: [{ format: 'PKBarcodeFormatQR', message: link, messageEncoding: 'iso-8859-1', altText: ticket.displayNumber }],
  };
}
