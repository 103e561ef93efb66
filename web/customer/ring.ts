// The ring: the page turns to "ready", chimes, vibrates and tells a screen reader, once per ring
// even across reloads of the tab (the rings shown are kept in sessionStorage); every ring event is
// confirmed to the server.
import { byId } from '../shared/dom.ts';
import { chime } from './sound.ts';

export type Rings = {
  /** Whether this ring was shown already. */
  seen(id: string): boolean;
  ring(id: string, text: string): void;
};

function loadSeen(key: string): string[] {
  try {
    return JSON.parse(sessionStorage.getItem(key) || '[]') as string[];
  } catch {
    return [];
  }
}

function show(text: string): void {
  const root = document.documentElement;
  root.dataset.state = 'ready';
  root.dataset.ringing = '1';
  chime();
  if (navigator.vibrate) navigator.vibrate([400, 150, 400, 150, 800]);
  const live = byId('live');
  live.textContent = '';
  setTimeout(() => {
    live.textContent = text;
  }, 50);
}

export function rings(base: string): Rings {
  const key = 'rb-rings:' + base;
  let seen = loadSeen(key);
  return {
    seen: (id) => seen.includes(id),
    ring(id, text) {
      // Every ring event is confirmed (a repeat may mean our first confirmation was lost); each
      // ring is shown only once.
      fetch(base + '/ring-ack', {
        method: 'POST',
        headers: { 'content-type': 'application/json' },
        body: JSON.stringify({ ring_id: id }),
        keepalive: true,
      }).catch(() => {});
      if (seen.includes(id)) return;
      seen = seen.concat(id).slice(-20);
      try {
        sessionStorage.setItem(key, JSON.stringify(seen));
      } catch {
        /* private mode */
      }
      show(text);
    },
  };
}
