// Draws a snapshot: the shop, the Preparing / Ready / missed lists, the highlight of numbers
// that became ready a moment ago, the flash of one that arrived unseen, and the announcements.
import { byId } from '../shared/dom.ts';
import { layout } from './fit.ts';
import { showFlash, startFlash } from './flash.ts';
import type { BoardSnapshot } from './types.ts';

// A number that became ready this recently, unseen before, flashes on arrival.
const FRESH_MS = 10000;

let highlightTimers: Array<ReturnType<typeof setTimeout>> = [];
let shown: Set<string> | null = null; // the ready numbers on screen; null until the first snapshot

function list(el: HTMLElement, items: string[]): void {
  el.replaceChildren(
    ...items.map((n) => {
      const li = document.createElement('li');
      li.textContent = n;
      return li;
    }),
  );
}

function renderReady(v: BoardSnapshot): void {
  const ready = byId('ready');
  list(
    ready,
    v.ready.map((r) => r.number),
  );
  byId('ready-empty').hidden = v.ready.length > 0;
  highlightTimers.forEach(clearTimeout);
  highlightTimers = [];
  const before = shown;
  shown = new Set(v.ready.map((r) => r.number));
  v.ready.forEach((r, i) => {
    const li = ready.children[i] as HTMLElement;
    if (r.age_ms < v.highlight_ms) {
      li.classList.add('new');
      highlightTimers.push(
        setTimeout(() => {
          li.classList.remove('new');
        }, v.highlight_ms - r.age_ms),
      );
    }
    if (before !== null && !before.has(r.number) && r.age_ms < FRESH_MS) startFlash(r.number);
    showFlash(li, r.number);
  });
}

function renderAnnouncements(v: BoardSnapshot): void {
  const ann = byId('ann');
  list(ann, []);
  v.announcements.forEach((a) => {
    const p = document.createElement('p');
    p.textContent = a.message;
    ann.append(p);
    setTimeout(() => {
      p.remove();
      ann.hidden = ann.children.length === 0;
      layout();
    }, a.expires_in_ms);
  });
  ann.hidden = v.announcements.length === 0;
}

export function render(v: BoardSnapshot): void {
  document.body.classList.remove('stale');
  byId('shop').textContent = v.shop;
  document.title = v.shop + ' · ' + byId('t-ready').textContent;
  list(byId('preparing'), v.preparing);
  renderReady(v);
  list(byId('missed'), v.missed);
  byId('missed-box').hidden = v.missed.length === 0;
  renderAnnouncements(v);
  layout();
}
