// The signed-in session, shared by every screen: who, which branch, which mode (live or test data)
// and the role rules the navigation follows (the server enforces them; the page only hides what
// would be refused).
import { createContext } from 'preact';
import { useContext } from 'preact/hooks';
import type { Mode } from './api.ts';
import type { Role, Session } from './types.ts';
import { initialMode } from './initial-mode.ts';

export type SessionState = {
  session: Session;
  setSession: (s: Session) => void;
  signOut: () => void;
  mode: Mode;
  setMode: (m: Mode) => void;
};

export const SessionContext = createContext<SessionState | null>(null);

export function useSession(): SessionState {
  const s = useContext(SessionContext);
  if (s === null) throw new Error('useSession outside a signed-in page');
  return s;
}

const RANK: Record<Role, number> = { staff: 1, manager: 2, owner: 3 };
export const atLeast = (s: Session, role: Role): boolean => RANK[s.user.role] >= RANK[role];

const MODE_KEY = 'readybell:mode';

/**
 * This tab's mode survives a reload, never another tab: a new tab starts on live data unless its
 * link asks for test data (`?mode=test`, the link the demo prints: initial-mode.ts).
 */
export function savedMode(): Mode {
  let saved: string | null = null;
  try {
    saved = sessionStorage.getItem(MODE_KEY);
  } catch {
    // no storage: the link alone decides
  }
  const mode = initialMode(location.search, saved);
  saveMode(mode);
  // Read once: a reload after switching keeps the switch, not the link's choice.
  const url = new URL(location.href);
  if (url.searchParams.has('mode')) {
    url.searchParams.delete('mode');
    history.replaceState(history.state, '', url);
  }
  return mode;
}

export function saveMode(m: Mode): void {
  try {
    sessionStorage.setItem(MODE_KEY, m);
  } catch {
    // not kept: a reload returns to live data
  }
}
