// readybell display board: Preparing / Ready columns kept live over SSE and fitted to the screen,
// the shop's clock, a chime and the number spoken on every call-out (with the number flashing in
// step), and a confirmation to the server of each call-out (whether it could speak). The page is
// complete without this script (src/http/pages/board-html.ts); it makes it live. Built by
// scripts/build-pages.ts into one classic script for TV and kiosk browsers.
import { byId } from '../shared/dom.ts';
import { openLiveStream } from '../shared/live-stream.ts';
import { announce } from './call-out.ts';
import { startClock } from './clock.ts';
import { keepFitted } from './fit.ts';
import { render } from './render.ts';
import { setUpSound } from './sound.ts';
import type { BoardSnapshot, CallOut } from './types.ts';

function showOffline(): void {
  byId('offline').hidden = false;
  // While disconnected the lists may be out of date: dim them until a fresh snapshot comes.
  document.body.classList.add('stale');
}

function showLive(): void {
  byId('offline').hidden = true;
  document.documentElement.dataset.live = 'on';
}

// 404/410: the board was deleted; the page itself says so.
function reloadIfDeleted(base: string): void {
  fetch(base, { method: 'HEAD' })
    .then((r) => (r.status === 410 || r.status === 404 ? location.reload() : null))
    .catch(() => {});
}

function start(main: HTMLElement): void {
  const base = main.dataset.base!;
  const voice = main.dataset.voice === '1';
  const lang = document.documentElement.lang;
  const stream = openLiveStream({
    url: main.dataset.events!,
    heartbeatMs: Number(main.dataset.heartbeat) || 15000,
    events: {
      snapshot: (data) => {
        const v = JSON.parse(data) as BoardSnapshot;
        // A new language or voice setting changes the whole page: load it again.
        if (v.lang !== lang || v.voice !== voice) location.reload();
        else render(v);
      },
      announce: (data) => announce(JSON.parse(data) as CallOut, voice, base),
      gone: () => {
        stream.stop();
        location.reload();
      },
      ping: () => {},
    },
    onLive: showLive,
    onLost: showOffline,
    onGaveUp: () => reloadIfDeleted(base),
  });
  if (voice) setUpSound();
  startClock(main);
  keepFitted();
}

const main = document.getElementById('rb-board');
if (main) start(main);
