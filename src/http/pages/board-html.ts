// The display board's HTML: filled on the server (a TV that runs no script still shows the
// numbers, the shop's name and the time as of loading), then kept live and fitted to the screen
// by its script (web/board).
import type { BoardView } from '../../realtime/board-view.ts';
import { boardTexts } from '../../i18n/board-texts.ts';
import { dirAttribute, FORMAT_LOCALE, formatTime, type Language } from '../../i18n/language.ts';
import type { WebAssets } from './assets.ts';
import { esc } from './page-headers.ts';

const items = (list: string[], cls: (i: number) => string = () => ''): string =>
  list.map((n, i) => `<li${cls(i) ? ` class="${cls(i)}"` : ''}>${esc(n)}</li>`).join('');

/**
 * How full a panel's list is, for the stylesheet's sizes when no script fits the numbers to the
 * screen (web/board/fit.ts computes the same, then the exact size).
 */
export function fillLevel(n: number): string {
  return n <= 3 ? 'few' : n <= 6 ? 'some' : n <= 12 ? 'many' : n <= 20 ? 'lots' : 'full';
}

// A speaker, drawn inline: the page loads nothing from elsewhere.
const SPEAKER = (on: boolean): string =>
  `<svg class="icon" viewBox="0 0 24 24" aria-hidden="true" focusable="false"><path fill="currentColor" d="M3 9v6h4l5 4V5L7 9H3z"/>${
    on
      ? '<path fill="none" stroke="currentColor" stroke-width="2" stroke-linecap="round" d="M15.5 8.5a5 5 0 0 1 0 7M18.5 5.5a9 9 0 0 1 0 13"/>'
      : '<path stroke="currentColor" stroke-width="2" stroke-linecap="round" d="M16 9l5 6M21 9l-5 6"/>'
  }</svg>`;

export function boardPageHtml(v: BoardView, base: string, assets: WebAssets, heartbeatMs: number, now: number): string {
  const t = boardTexts(v.lang);
  const anns = v.announcements.map((a) => `<p>${esc(a.message)}</p>`).join('');
  const ready = v.ready.map((r) => r.number);
  return `<!doctype html>
<html lang="${v.lang}"${dirAttribute(v.lang)}>
<head>
<meta charset="utf-8">
<meta name="viewport" content="width=device-width,initial-scale=1">
<meta name="referrer" content="no-referrer">
<meta name="robots" content="noindex,nofollow">
<title>${esc(v.shop)} · ${esc(t.t('ready'))}</title>
<link rel="icon" href="${assets.url('icon.svg')}" type="image/svg+xml">
<style>${assets.boardCss}</style>
<noscript><meta http-equiv="refresh" content="15"></noscript>
${assets.scriptTag('board.js')}
</head>
<body>
<main id="rb-board" data-base="${base}" data-events="${base}/events" data-heartbeat="${heartbeatMs}" data-voice="${v.voice ? '1' : '0'}" data-now="${now}" data-tz="${esc(v.timezone)}" data-locale="${FORMAT_LOCALE[v.lang]}">
<header class="bar">
<h1 id="shop" class="shop">${esc(v.shop)}</h1>
<p id="offline" class="offline" role="status" hidden>${esc(t.t('offline'))}</p>
<div id="sound-box" class="sound" hidden>
<button type="button" id="sound">${SPEAKER(false)}<span>${esc(t.t('sound.enable'))}</span></button>
<p id="sound-on" class="sound-on" role="status" tabindex="-1" hidden>${SPEAKER(true)}<span>${esc(t.t('sound.on'))}</span></p>
</div>
<time id="clock" class="clock">${esc(formatTime(v.lang, now, v.timezone))}</time>
</header>
<section class="col prep" aria-labelledby="t-prep" data-fill="${fillLevel(v.preparing.length)}"><h2 id="t-prep">${esc(t.t('preparing'))}</h2><ol id="preparing">${items(v.preparing)}</ol></section>
<section class="col ready" aria-labelledby="t-ready" data-fill="${fillLevel(ready.length)}"><h2 id="t-ready">${esc(t.t('ready'))}</h2>
<p id="ready-empty" class="empty"${ready.length === 0 ? '' : ' hidden'}>${esc(t.t('readyEmpty'))}</p>
<ol id="ready">${items(ready, (i) => (v.ready[i]!.age_ms < v.highlight_ms ? 'new' : ''))}</ol>
<div id="missed-box" class="missed"${v.missed.length === 0 ? ' hidden' : ''}><h3 id="t-missed">${esc(t.t('missed'))}</h3><ol id="missed">${items(v.missed)}</ol></div></section>
<footer id="ann" class="ann"${anns === '' ? ' hidden' : ''}>${anns}</footer>
<div id="live" class="sr" aria-live="polite"></div>
</main>
</body>
</html>`;
}

export function boardMessageHtml(lang: Language, title: string, body: string, assets: WebAssets): string {
  return `<!doctype html>
<html lang="${lang}"${dirAttribute(lang)}>
<head><meta charset="utf-8"><meta name="viewport" content="width=device-width,initial-scale=1"><meta name="robots" content="noindex"><title>${esc(title)}</title><style>${assets.boardCss}</style></head>
<body><main class="gone"><h1>${esc(title)}</h1><p>${esc(body)}</p></main></body>
</html>`;
}
