// When a certificate ends, and whether that is soon: Apple's Pass Type ID certificate is valid a
// year, and when it lapses every pass download and every APNs push fails (issue 36 item 13).
import { X509Certificate } from 'node:crypto';

/** Warned about from this long before the end: time to renew it in Apple's developer account. */
export const CERTIFICATE_WARNING_MS = 30 * 24 * 60 * 60 * 1000;

export type CertificateExpiry = {
  /** The certificate's notAfter, in ms. */
  expiresAt: number;
  daysLeft: number;
  state: 'ok' | 'expiring' | 'expired';
};

/** The end of the first certificate of a PEM (the leaf), and how soon it is from `now`. */
export function certificateExpiry(pem: string, now: number): CertificateExpiry {
  const expiresAt = new X509Certificate(pem).validToDate.getTime();
  const left = expiresAt - now;
  return {
    expiresAt,
    daysLeft: Math.floor(left / 86_400_000),
    state: left <= 0 ? 'expired' : left <= CERTIFICATE_WARNING_MS ? 'expiring' : 'ok',
  };
}
