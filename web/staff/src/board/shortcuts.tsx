// Keyboard shortcuts for a counter PC. They act only when focus is not in a text field, so typing
// an order reference never marks a ticket ready.
import { useEffect, useRef } from 'preact/hooks';
import { t, type MessageKey } from '../i18n/i18n.ts';

export const SHORTCUTS: Array<[string, MessageKey]> = [
  ['N', 'shortcut.new'],
  ['/', 'shortcut.search'],
  ['↓ J / ↑ K', 'shortcut.move'],
  ['R', 'shortcut.ready'],
  ['C', 'shortcut.collect'],
  ['X', 'shortcut.cancel'],
  ['P', 'shortcut.slip'],
  ['Esc', 'shortcut.clear'],
  ['?', 'shortcut.help'],
];

export type ShortcutHandlers = {
  newTicket(): void;
  search(): void;
  move(delta: number): void;
  act(what: 'ready' | 'collect' | 'cancel' | 'slip'): void;
  clear(): void;
  help(): void;
};

const typing = (el: Element | null): boolean =>
  el instanceof HTMLInputElement ||
  el instanceof HTMLTextAreaElement ||
  el instanceof HTMLSelectElement ||
  (el instanceof HTMLElement && el.isContentEditable);

export function useShortcuts(handlers: ShortcutHandlers, enabled: boolean): void {
  // Keys can come faster than the page re-renders: the listener always calls the latest handlers.
  const latest = useRef(handlers);
  latest.current = handlers;
  useEffect(() => {
    const h: ShortcutHandlers = {
      newTicket: () => latest.current.newTicket(),
      search: () => latest.current.search(),
      move: (d) => latest.current.move(d),
      act: (w) => latest.current.act(w),
      clear: () => latest.current.clear(),
      help: () => latest.current.help(),
    };
    if (!enabled) return;
    const onKey = (e: KeyboardEvent) => {
      if (e.ctrlKey || e.metaKey || e.altKey) return;
      if (e.key === 'Escape') {
        h.clear();
        return;
      }
      if (typing(document.activeElement) || document.querySelector('dialog[open]') !== null) return;
      const map: Record<string, () => void> = {
        n: h.newTicket,
        N: h.newTicket,
        '/': h.search,
        '?': h.help,
        ArrowDown: () => h.move(1),
        j: () => h.move(1),
        ArrowUp: () => h.move(-1),
        k: () => h.move(-1),
        r: () => h.act('ready'),
        c: () => h.act('collect'),
        x: () => h.act('cancel'),
        p: () => h.act('slip'),
      };
      const fn = map[e.key];
      if (fn === undefined) return;
      e.preventDefault();
      fn();
    };
    addEventListener('keydown', onKey);
    return () => removeEventListener('keydown', onKey);
  }, [enabled]);
}

export function ShortcutHelp({ open, onToggle }: { open: boolean; onToggle: (open: boolean) => void }) {
  return (
    <details class="shortcuts" open={open} onToggle={(e) => onToggle((e.currentTarget as HTMLDetailsElement).open)}>
      <summary>{t('shortcut.title')}</summary>
      <dl>
        {SHORTCUTS.map(([key, what]) => (
          <div key={key}>
            <dt>
              <kbd>{key}</kbd>
            </dt>
            <dd>{t(what)}</dd>
          </div>
        ))}
      </dl>
    </details>
  );
}
