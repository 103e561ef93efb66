// A number called out flashes in step with the chime's three notes. A flash survives the list
// being redrawn: a redrawn item resumes it where it was.
import { byId } from '../shared/dom.ts';

/** The chime's three notes are this far apart (s); the flash pulses with them. */
export const NOTE_S = 0.5;
export const FLASH_MS = 3 * NOTE_S * 1000;

const flashes = new Map<string, number>(); // number → when its flash started (this browser's clock)

/** Shows the flash `number` has under way, if any, on its list item. */
export function showFlash(li: HTMLElement | null | undefined, number: string): void {
  const at = flashes.get(number);
  if (at === undefined || !li) return;
  const elapsed = Date.now() - at;
  if (elapsed >= FLASH_MS) {
    flashes.delete(number);
    return;
  }
  li.classList.remove('flash');
  void li.offsetWidth; // restart the animation
  li.style.animationDelay = -elapsed + 'ms';
  li.classList.add('flash');
  setTimeout(() => li.classList.remove('flash'), FLASH_MS - elapsed);
}

/** Starts a flash that the next showFlash of this number shows; false when one is under way. */
export function startFlash(number: string): boolean {
  if (flashes.has(number)) return false;
  flashes.set(number, Date.now());
  return true;
}

function readyItem(number: string): HTMLElement | null {
  for (const li of byId('ready').children) if (li.textContent === number) return li as HTMLElement;
  return null;
}

/** Flashes a number now (a call-out), restarting a flash under way. */
export function flash(number: string): void {
  flashes.set(number, Date.now());
  showFlash(readyItem(number), number);
}
