// The display board's HTML: filled on the server (a TV that runs no script still shows the
// numbers as of loading), then kept live by board.js.
import type { BoardView } from '../../realtime/board-view.ts';
import { BOARD_TEXTS } from '../../i18n/board-texts.ts';
import type { Language } from '../../i18n/language.ts';
import type { WebAssets } from './assets.ts';
import { esc } from './page-headers.ts';

const items = (list: string[], cls: (i: number) => string = () => ''): string =>
  list.map((n, i) => `<li${cls(i) ? ` class="${cls(i)}"` : ''}>${esc(n)}</li>`).join('');

export function boardPageHtml(v: BoardView, base: string, assets: WebAssets, heartbeatMs: number): string {
  const t = BOARD_TEXTS[v.lang];
  const anns = v.announcements.map((a) => `<p>${esc(a.message)}</p>`).join('');
  return `<!doctype html>
<html lang="${v.lang}">
<head>
<meta charset="utf-8">
<meta name="viewport" content="width=device-width,initial-scale=1">
<meta name="referrer" content="no-referrer">
<meta name="robots" content="noindex,nofollow">
<title>${esc(v.name)} · ${esc(t.ready)}</title>
<link rel="icon" href="${assets.url('icon.svg')}" type="image/svg+xml">
<style>${assets.boardCss}</style>
<noscript><meta http-equiv="refresh" content="15"></noscript>
<script src="${assets.url('board.js')}" defer></script>
</head>
<body>
<main id="rb-board" data-base="${base}" data-events="${base}/events" data-heartbeat="${heartbeatMs}" data-voice="${v.voice ? '1' : '0'}">
<p id="offline" class="offline" role="status" hidden>${esc(t.offline)}</p>
<section class="col prep" aria-labelledby="t-prep"><h2 id="t-prep">${esc(v.texts.preparing)}</h2><ol id="preparing">${items(v.preparing)}</ol></section>
<section class="col ready" aria-labelledby="t-ready"><h2 id="t-ready">${esc(v.texts.ready)}</h2><ol id="ready">${items(v.ready.map((r) => r.number), (i) => (v.ready[i]!.age_ms < v.highlight_ms ? 'new' : ''))}</ol>
<div id="missed-box"${v.missed.length === 0 ? ' hidden' : ''}><h3 id="t-missed">${esc(v.texts.missed)}</h3><ol id="missed">${items(v.missed)}</ol></div></section>
<footer id="ann" class="ann"${anns === '' ? ' hidden' : ''}>${anns}</footer>
<button type="button" id="sound" hidden>${esc(t.enableSound)}</button>
<div id="live" class="sr" aria-live="polite"></div>
</main>
</body>
</html>`;
}

export function boardMessageHtml(lang: Language, title: string, body: string, assets: WebAssets): string {
  return `<!doctype html>
<html lang="${lang}">
<head><meta charset="utf-8"><meta name="viewport" content="width=device-width,initial-scale=1"><meta name="robots" content="noindex"><title>${esc(title)}</title><style>${assets.boardCss}</style></head>
<body><div class="gone"><h2>${esc(title)}</h2><p>${esc(body)}</p></div></body>
</html>`;
}
