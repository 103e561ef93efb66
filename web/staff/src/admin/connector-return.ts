// How the trip to a POS's consent page ended, as the API's OAuth callback (the connector port's
// shared flow) says in the address it sends the browser back to: `/staff/#/settings/<name>?<name>=connected`
// or `…?<name>_error=<code>` (access_denied when the owner declined). The query may also sit before
// the hash (`/staff/?square=connected#/settings/square`); both are read. It is said once: the
// address is put back to the bare screen so a reload or a bookmark does not say it again.

export type OAuthReturn = { kind: 'connected' } | { kind: 'error'; code: string };

function params(): URLSearchParams {
  const inHash = location.hash.indexOf('?');
  const all = new URLSearchParams(location.search);
  if (inHash >= 0) for (const [k, v] of new URLSearchParams(location.hash.slice(inHash + 1))) all.set(k, v);
  return all;
}

export function oauthReturn(connector: string): OAuthReturn | null {
  const p = params();
  const error = p.get(`${connector}_error`);
  // The codes are short snake_case words; anything else is not shown as if the POS had said it.
  if (error !== null) return { kind: 'error', code: /^[a-z0-9_.-]{1,64}$/i.test(error) ? error : 'unknown' };
  if (p.get(connector) === 'connected') return { kind: 'connected' };
  return null;
}

export function clearOAuthReturn(connector: string): void {
  const p = params();
  if (!p.has(connector) && !p.has(`${connector}_error`)) return;
  history.replaceState(history.state, '', `${location.pathname}#/settings/${connector}`);
}
