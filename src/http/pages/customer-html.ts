// The customer page's HTML: complete without JavaScript (the shop, the number, status, queue
// position, the shop's announcement, working "On my way" / "Need 5 more minutes" forms, a refresh
// button and, while the ticket is open, a meta refresh inside <noscript>). Which actions show is
// the stylesheet's business, by the state on <html>, so the first HTML and the live page agree.
// The script only makes it live.
import type { PageView } from '../../realtime/page-view.ts';
import { pageTitle } from '../../realtime/page-view.ts';
import { customerTexts } from '../../i18n/customer-texts.ts';
import { dirAttribute, textDirection, type Language } from '../../i18n/language.ts';
import { APPLE_TOUCH_ICON, MANIFEST_ICONS, type WebAssets } from './assets.ts';
import { esc } from './page-headers.ts';

export type CustomerPageInput = {
  view: PageView;
  base: string;
  assets: WebAssets;
  heartbeatMs: number;
  pushScript: string | null;
  /** "Text me" (shown when view.phone_entry): whether + and the country code must be typed, and what was wrong last time. */
  phone?: { needsCountryCode: boolean; error: string | null };
  /**
   * The wallets the operator configured (decision 0071): `apple` is `badge` where Safari on iOS or
   * macOS adds a pass in one tap (walletBadge), `link` elsewhere; null or absent: not offered.
   */
  wallet?: { apple: 'badge' | 'link' | null; google: boolean };
};

/**
 * Where "Add to Apple Wallet" is the badge: iPhones and iPads (every browser there opens a pass in
 * Wallet) and Safari on a Mac. Elsewhere a plain link, which downloads the pass.
 */
export function walletBadge(userAgent: string | undefined): 'badge' | 'link' {
  const ua = userAgent ?? '';
  if (/\b(iPhone|iPad|iPod)\b/.test(ua)) return 'badge';
  return /Macintosh/.test(ua) && /Version\/[\d.]+ Safari\//.test(ua) && !/Chrome|Chromium|Edg|Firefox|OPR/.test(ua) ? 'badge' : 'link';
}

const hidden = (v: unknown): string => (v ? '' : ' hidden');

/** The number's length in characters, 3 to 8, which the stylesheet sizes it by. */
export const numberLength = (n: string): number => Math.min(8, Math.max(3, [...n].length));

// A bell, drawn inline: the page loads nothing from elsewhere.
const BELL =
  '<svg class="bell" viewBox="0 0 24 24" aria-hidden="true" focusable="false"><path fill="currentColor" d="M12 22a2.5 2.5 0 0 0 2.45-2h-4.9A2.5 2.5 0 0 0 12 22zm7-6V11a7 7 0 0 0-5.5-6.84V3.5a1.5 1.5 0 0 0-3 0v.66A7 7 0 0 0 5 11v5l-2 2v1h18v-1l-2-2z"/></svg>';
// Wallet's mark, drawn inline for the badge: a card pocket with four coloured cards.
const WALLET_MARK =
  '<svg class="wallet-mark" viewBox="0 0 32 26" aria-hidden="true" focusable="false"><rect x="1" y="1" width="30" height="24" rx="4" fill="#d9d9d9"/><rect x="3" y="3" width="26" height="7" rx="2" fill="#36a3eb"/><rect x="3" y="7" width="26" height="7" rx="2" fill="#45c15f"/><rect x="3" y="11" width="26" height="7" rx="2" fill="#fdb62f"/><rect x="3" y="15" width="26" height="7" rx="2" fill="#f5534f"/><path d="M1 16h9a6 4 0 0 0 12 0h9v5a4 4 0 0 1-4 4H5a4 4 0 0 1-4-4z" fill="#1f1f1f"/></svg>';
// Safari's Share button as the customer sees it: the text names it too.
const SHARE =
  '<svg class="share" viewBox="0 0 24 24" aria-hidden="true" focusable="false"><path fill="none" stroke="currentColor" stroke-width="2" stroke-linecap="round" stroke-linejoin="round" d="M12 3v12M8 7l4-4 4 4M8 10H6v11h12V10h-2"/></svg>';

export function customerPageHtml(i: CustomerPageInput): string {
  const { view: v, base, assets } = i;
  const t = customerTexts(v.lang);
  const anns = v.announcements.map((a) => `<p>${esc(a.message)}</p>`).join('');
  const scripts = (i.pushScript === null ? '' : `<script src="${esc(i.pushScript)}" defer></script>`) + assets.scriptTag('customer.js');
  const refresh = `<a class="button" href="${base}">${esc(t.t('action.refresh'))}</a>`;
  return `<!doctype html>
<html lang="${v.lang}"${dirAttribute(v.lang)} data-state="${v.state}">
<head>
<meta charset="utf-8">
<meta name="viewport" content="width=device-width,initial-scale=1,viewport-fit=cover">
<meta name="referrer" content="no-referrer">
<meta name="robots" content="noindex,nofollow">
<meta name="theme-color" content="#ffd60a">
<title>${esc(v.title)}</title>
<link rel="manifest" href="${base}/manifest.webmanifest?lang=${v.lang}">
<link rel="icon" href="${assets.url('icon.svg')}" type="image/svg+xml">
${assets.iconsBuilt ? `<link rel="apple-touch-icon" href="${assets.url(APPLE_TOUCH_ICON.name)}">\n` : ''}<style>${assets.customerCss}</style>
${v.open ? '<noscript><meta http-equiv="refresh" content="30"></noscript>' : ''}
${scripts}
</head>
<body>
<main id="rb" data-base="${base}" data-events="${base}/events?lang=${v.lang}" data-heartbeat="${i.heartbeatMs}" data-open="${v.open ? '1' : '0'}" data-rung="${esc(v.rung_text)}">
<header class="shop">${BELL}<span id="shop">${esc(v.shop)}</span></header>
<div class="ticket" id="ticket" data-len="${numberLength(v.number)}">
<p class="label">${esc(t.t('yourNumber'))}</p>
<p class="num" id="num">${esc(v.number)}</p>
</div>
<h1 id="heading">${esc(v.heading)}</h1>
<p id="detail">${esc(v.detail)}</p>
<p id="pos" class="pos"${hidden(v.position_text)}>${esc(v.position_text ?? '')}</p>
<p id="wait" class="wait"${hidden(v.wait_text)}>${esc(v.wait_text ?? '')}</p>
<section id="ann" class="ann" aria-labelledby="ann-h"${hidden(anns)}><h2 id="ann-h">${esc(t.t('announcement'))}</h2><div id="ann-list">${anns}</div></section>
<div class="actions">
<form method="post" action="${base}/acknowledge"><button class="primary" type="submit">${esc(t.t('action.onMyWay'))}</button></form>
<form method="post" action="${base}/snooze" class="snooze"><input type="hidden" name="minutes" value="${v.snooze_minutes}"><button type="submit">${esc(t.t('action.snooze', { count: v.snooze_minutes }))}</button></form>
</div>
<div id="alertbox" class="alertbox" hidden>
<button type="button" id="alert" class="primary" hidden>${esc(t.t('action.alertMe'))}</button>
<p id="alert-on" class="note" role="status" hidden>${esc(t.t('alert.on'))}</p>
<section id="ios" class="ios" aria-labelledby="ios-h" hidden>
<h2 id="ios-h" tabindex="-1">${esc(t.t('ios.title'))}</h2>
<p>${esc(t.t('ios.intro'))}</p>
<ol><li>${esc(t.t('ios.share'))} ${SHARE}</li><li>${esc(t.t('ios.add'))}</li></ol>
<p>${esc(t.t('ios.then'))}</p>
<p>${esc(t.t('ios.meanwhile'))}</p>
</section>
</div>
${walletBox(i, t)}
${v.phone_entry ? phoneBox(i, t) : ''}
<p id="offline" class="offline" role="status" hidden>${esc(t.t('offline'))} ${refresh}</p>
${v.open ? `<noscript><p class="refresh">${refresh}</p></noscript>` : ''}
<div id="live" class="sr" aria-live="assertive" aria-atomic="true"></div>
</main>
</body>
</html>`;
}

/**
 * "Text me": a plain form, so it works without script. The number is never written back into
 * the page: what it shows is the masked one the ticket holds (view.phone_text).
 */
function phoneBox(i: CustomerPageInput, t: ReturnType<typeof customerTexts>): string {
  const { view: v, base } = i;
  const error = i.phone?.error ?? null;
  const hint = i.phone?.needsCountryCode ?? true;
  const describedBy = [hint ? 'phone-hint' : '', 'phone-error'].filter(Boolean).join(' ');
  return `<section id="phonebox" class="phonebox" aria-labelledby="phone-h">
<h2 id="phone-h">${esc(t.t('phone.title'))}</h2>
<p class="note">${esc(t.t('phone.intro'))}</p>
<p id="phone-on" class="phone-on" role="status"${hidden(v.phone_text)}>${esc(v.phone_text ?? '')}</p>
<form method="post" action="${base}/phone" id="phone-form">
<label for="phone">${esc(t.t('phone.label'))}</label>
${hint ? `<p id="phone-hint" class="note">${esc(t.t('phone.hint'))}</p>\n` : ''}<input id="phone" name="phone" type="tel" autocomplete="tel" inputmode="tel" maxlength="40" required aria-describedby="${describedBy}"${error ? ' aria-invalid="true"' : ''}>
<p id="phone-error" class="field-error" role="alert"${hidden(error)}>${esc(error ?? '')}</p>
<button type="submit">${esc(t.t('phone.submit'))}</button>
</form>
</section>`;
}

export function customerNotFoundHtml(lang: Language, assets: WebAssets): string {
  const t = customerTexts(lang);
  return simplePage(lang, t.t('notFound.title'), t.t('notFound.body'), assets);
}

export function customerTooManyHtml(lang: Language, assets: WebAssets): string {
  const t = customerTexts(lang);
  return simplePage(lang, t.t('tooMany.title'), t.t('tooMany.body'), assets);
}

function simplePage(lang: Language, title: string, body: string, assets: WebAssets): string {
  return `<!doctype html>
<html lang="${lang}"${dirAttribute(lang)}>
<head><meta charset="utf-8"><meta name="viewport" content="width=device-width,initial-scale=1"><meta name="robots" content="noindex"><title>${esc(title)}</title><style>${assets.customerCss}</style></head>
<body><main><h1>${esc(title)}</h1><p>${esc(body)}</p></main></body>
</html>`;
}

export type ManifestInput = { base: string; number: string; shop: string; lang: Language; assets: WebAssets };

/**
 * The ticket's web app manifest: what the page installs as from Add to Home Screen (which iOS
 * requires before it delivers Web Push). Each ticket is an app of its own (id), opening this
 * ticket's page (start_url) and nothing beyond it (scope).
 */
export function customerManifest(i: ManifestInput): string {
  const { base, assets } = i;
  const png = assets.iconsBuilt
    ? MANIFEST_ICONS.map(({ name, size }) => ({ src: assets.url(name), sizes: `${size}x${size}`, type: 'image/png', purpose: 'any' }))
    : [];
  return JSON.stringify({
    id: base,
    name: pageTitle(i.lang, i.number, i.shop),
    short_name: i.number,
    lang: i.lang,
    dir: textDirection(i.lang),
    start_url: base,
    scope: base,
    display: 'standalone',
    background_color: '#ffffff',
    theme_color: '#ffd60a',
    icons: [...png, { src: assets.url('icon.svg'), sizes: 'any', type: 'image/svg+xml', purpose: 'any' }],
  });
}

/** "Add to Apple Wallet" / "Add to Google Wallet" while the ticket is open (the stylesheet hides it once closed). */
function walletBox(i: CustomerPageInput, t: ReturnType<typeof customerTexts>): string {
  const w = i.wallet;
  if (w === undefined || (w.apple === null && !w.google) || !i.view.open) return '';
  const apple =
    w.apple === 'badge'
      ? `<a class="wallet-badge" id="wallet-apple" href="${i.base}/wallet/apple.pkpass" lang="${i.view.lang}">${WALLET_MARK}<span>${esc(t.t('wallet.apple'))}</span></a>`
      : w.apple === 'link'
        ? `<a class="wallet-link" id="wallet-apple" href="${i.base}/wallet/apple.pkpass">${esc(t.t('wallet.apple'))}</a>`
        : '';
  const google = w.google
    ? `<a class="wallet-link" id="wallet-google" href="${i.base}/wallet/google">${esc(t.t('wallet.google'))}</a>`
    : '';
  return `<section id="wallet" class="wallet" aria-label="Wallet">
<p class="note">${esc(t.t('wallet.note'))}</p>
${apple}${google}
</section>`;
}
