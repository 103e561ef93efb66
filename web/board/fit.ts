// Sizes the numbers to the screen: the largest size at which every number of a list fits its box,
// trying each column count (decision 0017). The list's box does not depend on its content
// (flex: 1 1 0), so fitting cannot loop.
import { byId } from '../shared/dom.ts';

/** How full a list is, for the stylesheet's sizes; src/http/pages/board-html.ts computes the same for the first HTML. */
function fillLevel(n: number): string {
  return n <= 3 ? 'few' : n <= 6 ? 'some' : n <= 12 ? 'many' : n <= 20 ? 'lots' : 'full';
}

/** The size (px, as a multiple of 100 px) and column count that fill the box best. */
function bestFit(list: HTMLElement, box: DOMRect, n: number): { size: number; cols: number } {
  let widest = 0;
  for (const li of list.children) widest = Math.max(widest, li.getBoundingClientRect().width);
  const style = getComputedStyle(list);
  const w = widest / 100;
  const gapX = parseFloat(style.columnGap) / 100 || 0;
  const gapY = parseFloat(style.rowGap) / 100 || 0;
  const line = parseFloat(style.lineHeight) / 100 || 1;
  let size = 0;
  let cols = 1;
  for (let c = 1; c <= n; c++) {
    const r = Math.ceil(n / c);
    const s = Math.min(box.width / (c * w + (c - 1) * gapX), box.height / (r * line + (r - 1) * gapY));
    if (s > size) {
      size = s;
      cols = c;
    }
  }
  return { size, cols };
}

function fit(list: HTMLElement, maxPx: number): void {
  const n = list.children.length;
  (list.closest('section') as HTMLElement).dataset.fill = fillLevel(n);
  if (n === 0) return;
  const box = list.getBoundingClientRect();
  if (box.width === 0 || box.height === 0) return;
  // Measured at 100 px in one column, then scaled.
  list.style.setProperty('--size', '100px');
  list.style.setProperty('--cols', '1');
  const best = bestFit(list, box, n);
  list.style.setProperty('--size', Math.max(8, Math.floor(Math.min(best.size * 0.97, maxPx))) + 'px');
  list.style.setProperty('--cols', String(best.cols));
}

export function layout(): void {
  const vh = window.innerHeight;
  fit(byId('ready'), vh * 0.45);
  fit(byId('preparing'), vh * 0.14);
}

/**
 * Fits again whenever the lists' room changes. The lists themselves are watched, not the page: a
 * banner, the missed list or an announcement changes their room without resizing the window.
 */
export function keepFitted(): void {
  if (window.ResizeObserver) {
    const watch = new ResizeObserver(layout);
    watch.observe(byId('ready'));
    watch.observe(byId('preparing'));
  } else window.addEventListener('resize', layout);
  layout();
}
