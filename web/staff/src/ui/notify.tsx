// What the page tells staff in passing ("Created A-12.", "A-12 is already collected"): short-lived
// messages at the bottom of the screen, never over the navigation, cleared when staff move to
// another screen (Shell calls `clear`). Errors of a form or a row are shown at that form or row
// (ui/field-errors.tsx), not here. Screen readers hear news through a polite live region.
import { createContext, type ComponentChildren } from 'preact';
import { useCallback, useContext, useRef, useState } from 'preact/hooks';
import { t } from '../i18n/i18n.ts';

export type NoticeKind = 'info' | 'success' | 'warning';
export type NoticeAction = { label: string; run: () => void };
/** `ms`: how long it shows (null: until dismissed); `action`: one button beside the text, which also dismisses it. */
export type NoticeOptions = { ms?: number | null; action?: NoticeAction };
type Notice = { id: number; kind: NoticeKind; text: string; action?: NoticeAction; sticky: boolean };
type Notify = (text: string, kind?: NoticeKind, options?: NoticeOptions) => void;
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
    (text, kind = 'info', options = {}) => {
      const id = ++seq.current;
      const ms = options.ms === undefined ? (kind === 'warning' ? 12_000 : 6_000) : options.ms;
      // At most three at once; a notice that waits to be dismissed is kept over passing ones.
      setNotices((n) => {
        const next = [...n, { id, kind, text, action: options.action, sticky: ms === null }];
        while (next.length > 3) {
          const passing = next.findIndex((x) => !x.sticky);
          next.splice(passing >= 0 ? passing : 0, 1);
        }
        return next;
      });
      if (ms !== null) setTimeout(() => dismiss(id), ms);
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
            {n.action !== undefined && (
              <button
                type="button"
                class="notice-action"
                onClick={() => {
                  dismiss(n.id);
                  n.action!.run();
                }}
              >
                {n.action.label}
              </button>
            )}
            <button type="button" class="link" aria-label={t('notice.dismiss')} onClick={() => dismiss(n.id)}>
              ×
            </button>
          </div>
        ))}
      </div>
    </Ctx.Provider>
  );
}
