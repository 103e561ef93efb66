// Which data a new staff tab opens on. A tab keeps its choice across reloads (sessionStorage); a
// link may choose test data (`/staff/?mode=test`): the link `npm start` and `readybell demo`
// print, so that a newcomer working with the demo's test key sees the tickets it makes instead of
// an empty Live board. Anything else starts on live data, as a shop's staff expect.

export type DataMode = 'live' | 'test';

/** The mode a tab opens on: the link's `mode=test` first, then what this tab chose before, else live. */
export function initialMode(search: string, saved: string | null): DataMode {
  const asked = new URLSearchParams(search).get('mode');
  if (asked === 'test' || asked === 'live') return asked;
  return saved === 'test' ? 'test' : 'live';
}
