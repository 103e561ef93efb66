// Keyboard shortcuts for a counter PC. They act only when focus is not in a text field, so typing
// an order reference never marks a ticket ready.
import { useEffect, useRef } from 'preact/hooks';

export const SHORTCUTS: Array<[string, string]> = [
  ['N', 'New ticket: focus the order reference'],
  ['/', 'Search by number or order reference'],
  ['↓ or J / ↑ or K', 'Select the next / previous ticket'],
  ['R', 'Ready (or ring again) for the selected ticket'],
  ['C', 'Collected'],
  ['X', 'Cancel'],
  ['P', 'Receipt slip'],
  ['Esc', 'Clear the search and the selection'],
  ['?', 'Show or hide this list'],
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
  el instanceof HTMLInputElement || el instanceof HTMLTextAreaElement || el instanceof HTMLSelectElement || (el instanceof HTMLElement && el.isContentEditable);

export function useShortcuts(handlers: ShortcutHandlers, enabled: boolean): void {
  // Keys can come faster than the page re-renders: the listener always calls the latest handlers.
  const latest = useRef(handlers);
  latest.current = handlers;
  useEffect(() => {
    const h: ShortcutHandlers = {
      newTicket: () => latest.current.newTicket(), search: () => latest.current.search(), move: (d) => latest.current.move(d),
      act: (w) => latest.current.act(w), clear: () => latest.current.clear(), help: () => latest.current.help(),
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
        n: h.newTicket, N: h.newTicket, '/': h.search, '?': h.help,
        ArrowDown: () => h.move(1), j: () => h.move(1), ArrowUp: () => h.move(-1), k: () => h.move(-1),
        r: () => h.act('ready'), c: () => h.act('collect'), x: () => h.act('cancel'), p: () => h.act('slip'),
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
      <summary>Keyboard shortcuts</summary>
      <dl>
        {SHORTCUTS.map(([key, what]) => (
          <div key={key}><dt><kbd>{key}</kbd></dt><dd>{what}</dd></div>
        ))}
      </dl>
    </details>
  );
}
