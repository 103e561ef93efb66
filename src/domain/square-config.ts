// The Square connector's part of the configuration (docs/square-operator.md), parsed by loadConfig
// from SQUARE_* and validated once at start: a half-configured application stops the process with
// a message instead of failing the first owner who clicks "Connect Square".
import type { SquareConfig } from '../core/config.ts';

type Get = (name: string) => string | undefined;

/** The path Square's notifications are POSTed to (the route and the default subscription URL). */
export const SQUARE_WEBHOOK_PATH = '/connectors/square/webhook';
/** Where Square sends the owner's browser back after the authorize page (the redirect URL to register). */
export const SQUARE_CALLBACK_PATH = '/connectors/square/oauth/callback';

export function loadSquareConfig(get: Get, problems: string[], publicUrl: string): SquareConfig | null {
  const applicationId = get('SQUARE_APPLICATION_ID');
  const applicationSecret = get('SQUARE_APPLICATION_SECRET');
  const signatureKey = get('SQUARE_WEBHOOK_SIGNATURE_KEY');
  if (applicationId === undefined) {
    if (applicationSecret !== undefined || signatureKey !== undefined)
      problems.push('SQUARE_APPLICATION_SECRET and SQUARE_WEBHOOK_SIGNATURE_KEY need SQUARE_APPLICATION_ID (or set none of them)');
    return null;
  }
  if (applicationSecret === undefined)
    problems.push('SQUARE_APPLICATION_ID needs SQUARE_APPLICATION_SECRET (the OAuth secret of the application)');
  if (signatureKey === undefined)
    problems.push("SQUARE_APPLICATION_ID needs SQUARE_WEBHOOK_SIGNATURE_KEY (the webhook subscription's signature key)");
  const environment = (get('SQUARE_ENVIRONMENT') ?? 'sandbox').toLowerCase();
  if (environment !== 'sandbox' && environment !== 'production') problems.push('SQUARE_ENVIRONMENT must be sandbox or production');
  const webhookUrl = get('SQUARE_WEBHOOK_URL') ?? `${publicUrl}${SQUARE_WEBHOOK_PATH}`;
  const baseUrl = get('SQUARE_BASE_URL') ?? null;
  for (const [name, url] of [
    ['SQUARE_WEBHOOK_URL', webhookUrl],
    ['SQUARE_BASE_URL', baseUrl],
  ] as const) {
    if (url !== null && !/^https?:\/\/[^\s]+$/.test(url)) problems.push(`${name} must be an http(s) URL`);
  }
  return {
    applicationId,
    applicationSecret: applicationSecret ?? '',
    environment: environment === 'production' ? 'production' : 'sandbox',
    webhookSignatureKey: signatureKey ?? '',
    webhookUrl,
    baseUrl: baseUrl?.replace(/\/+$/, '') ?? null,
  };
}
