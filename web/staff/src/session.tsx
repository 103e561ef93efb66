// The signed-in session, shared by every screen, and the role rules the navigation follows
// (the server enforces them; the page only hides what would be refused).
import { createContext } from 'preact';
import { useContext } from 'preact/hooks';
import type { Role, Session } from './types.ts';

export type SessionState = { session: Session; setSession: (s: Session) => void; signOut: () => void };

export const SessionContext = createContext<SessionState | null>(null);

export function useSession(): SessionState {
  const s = useContext(SessionContext);
  if (s === null) throw new Error('useSession outside a signed-in page');
  return s;
}

const RANK: Record<Role, number> = { staff: 1, manager: 2, owner: 3 };
export const atLeast = (s: Session, role: Role): boolean => RANK[s.user.role] >= RANK[role];
