// Webhook URL rules (PRODUCT.md §5; decision docs/decisions/0005-webhook-delivery.md):
//   - http or https; live mode: https only;
//   - no user:password@ (it would be shown in every listing and log) and no #fragment;
//   - the target must be a public address. WEBHOOK_ALLOW_PRIVATE lets *test-mode* endpoints reach
//     loopback, private and link-local targets (local development); live endpoints never may.
// Checked at creation (literal addresses, and the name's current DNS answers when private
// targets are refused) and again at delivery against the address actually connected to.
import { promises as dns } from 'node:dns';
import { isIP } from 'node:net';
import type { Config } from '../core/config.ts';
import type { Mode } from '../core/tenancy.ts';
import type { HostLookup, ResolvedAddress } from '../core/host-lookup.ts';
import { invalid } from '../domain/errors.ts';
import { isAddressAllowed } from '../domain/address-policy.ts';
import { MAX_URL_LENGTH } from '../contract/webhook-schemas.ts';

export const systemLookup: HostLookup = (hostname) => dns.lookup(hostname, { all: true, verbatim: true });

const CREATION_LOOKUP_TIMEOUT_MS = 2000;

export function privateTargetsAllowed(config: Pick<Config, 'webhookAllowPrivate'>, mode: Mode): boolean {
  return mode === 'test' && config.webhookAllowPrivate;
}

/** The host as a socket would see it: brackets of an IPv6 literal removed. */
export function bareHost(url: URL): string {
  return url.hostname.startsWith('[') ? url.hostname.slice(1, -1) : url.hostname;
}

/** RFC 6761: `localhost` and `*.localhost` are loopback whatever a resolver says. */
export function isLocalhostName(host: string): boolean {
  const h = host.toLowerCase().replace(/\.$/, '');
  return h === 'localhost' || h.endsWith('.localhost');
}

/** Every check that needs no network. Returns the normalised URL. */
export function checkWebhookUrlSyntax(raw: string, mode: Mode, allowPrivate: boolean): string {
  const bad = (detail: string): never => {
    throw invalid('/url', detail);
  };
  if (raw.length > MAX_URL_LENGTH) bad(`url must be at most ${MAX_URL_LENGTH} characters.`);
  let url: URL;
  try {
    url = new URL(raw);
  } catch {
    return bad('url must be an absolute http(s) URL such as https://pos.example.com/readybell.');
  }
  if (url.protocol !== 'https:' && url.protocol !== 'http:') bad('url must use https (or http in test mode).');
  if (mode === 'live' && url.protocol !== 'https:') bad('Live-mode webhook URLs must use https.');
  if (url.username !== '' || url.password !== '')
    bad('url must not contain a user name or password; authenticate deliveries with the signature instead.');
  if (url.hash !== '') bad('url must not contain a #fragment.');
  const host = bareHost(url);
  if (host === '') bad('url must name a host.');
  if (isIP(host) !== 0) {
    const verdict = isAddressAllowed(host, { allowPrivate });
    if (!verdict.allowed) bad(refusal(mode, verdict.reason));
  } else if (isLocalhostName(host) && !allowPrivate) {
    bad(refusal(mode, `${host} is a loopback name`));
  }
  return url.href;
}

export function refusal(mode: Mode, reason: string): string {
  return mode === 'live'
    ? `Webhook URLs must point to a public address: ${reason}.`
    : `Webhook URLs must point to a public address: ${reason}. (The operator can allow private targets for test-mode endpoints with WEBHOOK_ALLOW_PRIVATE=true.)`;
}

/**
 * All URL checks, DNS included. Runs before the write transaction (a lookup must never hold the
 * store's writer). A name that does not resolve now is accepted: DNS may not be set up yet, and
 * the delivery-time check guards every connection anyway.
 */
export async function checkWebhookUrl(
  raw: string,
  mode: Mode,
  config: Pick<Config, 'webhookAllowPrivate'>,
  lookup: HostLookup,
): Promise<string> {
  const allowPrivate = privateTargetsAllowed(config, mode);
  const href = checkWebhookUrlSyntax(raw, mode, allowPrivate);
  const host = bareHost(new URL(href));
  if (allowPrivate || isIP(host) !== 0) return href;
  let addresses: ResolvedAddress[] = [];
  let timer: NodeJS.Timeout | undefined;
  try {
    addresses = await Promise.race([
      lookup(host),
      new Promise<ResolvedAddress[]>((resolve) => {
        timer = setTimeout(() => resolve([]), CREATION_LOOKUP_TIMEOUT_MS);
      }),
    ]);
  } catch {
    addresses = [];
  } finally {
    clearTimeout(timer);
  }
  for (const a of addresses) {
    const verdict = isAddressAllowed(a.address, { allowPrivate });
    if (!verdict.allowed)
      throw invalid('/url', refusal(mode, `${host} resolves to ${verdict.reason.replace(/^\S+ is /, '')} (${a.address})`));
  }
  return href;
}
