// The board's clock: the server's time in the shop's zone, ticking every second. A TV's own clock
// or zone may be wrong; the page carries the server's time (data-now) and zone (data-tz).
import { byId } from '../shared/dom.ts';

function clockFormat(locale: string | undefined, timeZone: string | undefined): Intl.DateTimeFormat {
  try {
    return new Intl.DateTimeFormat(locale, { hour: '2-digit', minute: '2-digit', timeZone });
  } catch (_e) {
    return new Intl.DateTimeFormat(undefined, { hour: '2-digit', minute: '2-digit' });
  }
}

export function startClock(main: HTMLElement): void {
  const offset = Number(main.dataset.now) - Date.now() || 0;
  const format = clockFormat(main.dataset.locale, main.dataset.tz);
  const clock = byId('clock');
  const tick = (): void => {
    const now = new Date(Date.now() + offset);
    clock.textContent = format.format(now);
    clock.setAttribute('datetime', now.toISOString());
  };
  tick();
  setInterval(tick, 1000);
}
