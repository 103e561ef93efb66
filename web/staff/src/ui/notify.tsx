// What the page tells staff in passing ("Created A-12.", "A-12 is already collected"): short-lived
// messages at the bottom of the screen, never over the navigation, cleared when staff move to
// another screen (Shell calls `clear`). Errors of a form or a row are shown at that form or row
// (ui/field-errors.tsx), not here. Screen readers hear news through a polite live region.
import { createContext, type ComponentChildren } from 'preact';
import { useCallback, useContext, useRef, useState } from 'preact/hooks';
import { t } from '../i18n/i18n.ts';

export type NoticeKind = 'info' | 'success' | 'warning';
type Notice = { id: number; kind: NoticeKind; text: string };
type Notify = (text: string, kind?: NoticeKind) => void;
type NoticeApi = { notify: Notify; announce: (text: string) => void; clear: () => void };

const Ctx = createContext<NoticeApi>({ notify: () => {}, announce: () => {}, clear: () => {} });

export function useNotify(): Notify {
  return useContext(Ctx).notify;
}

/** Speaks without showing: e.g. "New ticket A-5" while staff look at the board. */
export function useAnnounce(): (text: string) => void {
  return useContext(Ctx).announce;
}

export function useClearNotices(): () => void {
  return useContext(Ctx).clear;
}

export function NoticeProvider({ children }: { children: ComponentChildren }) {
  const [notices, setNotices] = useState<Notice[]>([]);
  const [polite, setPolite] = useState('');
  const seq = useRef(0);
  const dismiss = useCallback((id: number) => setNotices((n) => n.filter((x) => x.id !== id)), []);
  const notify = useCallback<Notify>(
    (text, kind = 'info') => {
      const id = ++seq.current;
      setNotices((n) => [...n.slice(-2), { id, kind, text }]);
      setTimeout(() => dismiss(id), kind === 'warning' ? 12_000 : 6_000);
    },
    [dismiss],
  );
  const announce = useCallback((text: string) => setPolite(text), []);
  const clear = useCallback(() => setNotices([]), []);
  return (
    <Ctx.Provider value={{ notify, announce, clear }}>
      {children}
      <div class="sr-only" aria-live="polite" aria-atomic="true">
        {polite}
      </div>
      <div class="notices" role="status" aria-live="polite">
        {notices.map((n) => (
          <div key={n.id} class={`notice notice-${n.kind}`}>
            <span>{n.text}</span>
            <button type="button" class="link" aria-label={t('notice.dismiss')} onClick={() => dismiss(n.id)}>
              ×
            </button>
          </div>
        ))}
      </div>
    </Ctx.Provider>
  );
}
