// The "Add to Google Wallet" link: https://pay.google.com/gp/v/save/<JWT>, the JWT signed RS256 with
// the service account's key and carrying the class and the whole object (Google's JWT reference:
// developers.google.com/wallet/reference/rest/v1/Jwt). The object is also inserted through the
// REST API when the link is made (google-issuer.ts); carrying it whole here lets the save work even
// when that insert failed, and Google keeps an object that exists already as it is.
import type { KeyObject } from 'node:crypto';

export const SAVE_URL_BASE = 'https://pay.google.com/gp/v/save/';

export type SaveLinkInput = {
  clientEmail: string;
  key: KeyObject;
  /** The site the button is on (PUBLIC_URL's origin): Google refuses a save started elsewhere. */
  origin: string;
  nowSeconds: number;
  genericClass: object;
  genericObject: object;
};

export async function saveLink(input: SaveLinkInput): Promise<string> {
  // jose is loaded when Google Wallet is first used, not at every start.
  const { SignJWT } = await import('jose');
  const jwt = await new SignJWT({
    typ: 'savetowallet',
    origins: [input.origin],
    payload: { genericClasses: [input.genericClass], genericObjects: [input.genericObject] },
  })
    .setProtectedHeader({ alg: 'RS256', typ: 'JWT' })
    .setIssuer(input.clientEmail)
    .setAudience('google')
    .setIssuedAt(input.nowSeconds)
    .sign(input.key);
  return SAVE_URL_BASE + jwt;
}
