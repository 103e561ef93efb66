// One place for what the page tells staff: a visible message list and screen-reader live regions
// (polite for news such as a new ticket, assertive for failures).
import { createContext, type ComponentChildren } from 'preact';
import { useCallback, useContext, useRef, useState } from 'preact/hooks';

export type NoticeKind = 'info' | 'success' | 'warning' | 'error';
type Notice = { id: number; kind: NoticeKind; text: string };
type Notify = (text: string, kind?: NoticeKind) => void;

const Ctx = createContext<{ notify: Notify; announce: (text: string) => void }>({ notify: () => {}, announce: () => {} });

export function useNotify(): Notify {
  return useContext(Ctx).notify;
}

/** Speaks without showing: e.g. "New ticket A-5" while staff look at the board. */
export function useAnnounce(): (text: string) => void {
  return useContext(Ctx).announce;
}

export function NoticeProvider({ children }: { children: ComponentChildren }) {
  const [notices, setNotices] = useState<Notice[]>([]);
  const [polite, setPolite] = useState('');
  const seq = useRef(0);
  const dismiss = useCallback((id: number) => setNotices((n) => n.filter((x) => x.id !== id)), []);
  const notify = useCallback<Notify>((text, kind = 'info') => {
    const id = ++seq.current;
    setNotices((n) => [...n.slice(-3), { id, kind, text }]);
    setTimeout(() => dismiss(id), kind === 'error' || kind === 'warning' ? 12_000 : 7_000);
  }, [dismiss]);
  const announce = useCallback((text: string) => setPolite(text), []);
  return (
    <Ctx.Provider value={{ notify, announce }}>
      {children}
      <div class="sr-only" aria-live="polite" aria-atomic="true">{polite}</div>
      <div class="notices" role="status" aria-live="polite">
        {notices.filter((n) => n.kind !== 'error').map((n) => <Item key={n.id} n={n} dismiss={dismiss} />)}
      </div>
      <div class="notices notices-alert" role="alert">
        {notices.filter((n) => n.kind === 'error').map((n) => <Item key={n.id} n={n} dismiss={dismiss} />)}
      </div>
    </Ctx.Provider>
  );
}

function Item({ n, dismiss }: { n: Notice; dismiss: (id: number) => void }) {
  return (
    <div class={`notice notice-${n.kind}`}>
      <span>{n.text}</span>
      <button type="button" class="link" aria-label="Dismiss message" onClick={() => dismiss(n.id)}>×</button>
    </div>
  );
}
