// The counter board: new ticket, search, and the waiting / ready / recently closed columns, live.
import { useCallback, useEffect, useMemo, useRef, useState } from 'preact/hooks';
import { ApiError, call } from '../api.ts';
import type { Ticket } from '../types.ts';
import { useSession } from '../session.tsx';
import { useAnnounce, useNotify } from '../ui/notify.tsx';
import { problemText } from '../ui/field-errors.tsx';
import { t } from '../i18n/i18n.ts';
import { Icon } from './ticket-card.tsx';
import { sortBoard, useBoard, type TicketAction } from './use-board.ts';
import { TicketCard } from './ticket-card.tsx';
import { CreateTicket } from './create-ticket.tsx';
import { SlipDialog } from './slip.tsx';
import { ShortcutHelp, useShortcuts, type ShortcutHandlers } from './shortcuts.tsx';
import { FirstRun } from '../welcome/first-run.tsx';

const matches = (t: Ticket, q: string): boolean => {
  const s = q.trim().toLowerCase();
  return t.display_number.toLowerCase().includes(s) || (t.external_ref ?? '').toLowerCase().includes(s);
};

export function Board() {
  const { session } = useSession();
  const notify = useNotify();
  const announce = useAnnounce();
  const board = useBoard(notify, announce);
  const [now, setNow] = useState(Date.now());
  const [slip, setSlip] = useState<Ticket | null>(null);
  const [selected, setSelected] = useState<string | null>(null);
  const [search, setSearch] = useState('');
  const [found, setFound] = useState<Ticket[]>([]);
  const [help, setHelp] = useState(false);
  const [searchNote, setSearchNote] = useState<{ text: string; error: boolean } | null>(null);
  const searchRef = useRef<HTMLInputElement>(null);
  const tz = session.branch.timezone;

  useEffect(() => {
    const t = setInterval(() => setNow(Date.now()), 10_000);
    return () => clearInterval(t);
  }, []);

  const { waiting, ready, closed } = useMemo(() => sortBoard(board.tickets.values()), [board.tickets]);
  const searching = search.trim() !== '';
  const results = useMemo(() => {
    if (!searching) return [];
    const local = [...board.tickets.values()].filter((t) => matches(t, search));
    const extra = found.filter((f) => !board.tickets.has(f.id) && matches(f, search));
    return [...local, ...extra].sort((a, b) => b.created_at.localeCompare(a.created_at));
  }, [board.tickets, found, search, searching]);
  const order = searching ? results.filter((t) => t.status === 'created' || t.status === 'ready') : [...waiting, ...ready];
  // Refs, not render-time values: a second key press may arrive before the first re-rendered.
  const orderRef = useRef(order);
  orderRef.current = order;
  const selectedRef = useRef(selected);
  const select = useCallback((id: string | null) => {
    selectedRef.current = id;
    setSelected(id);
  }, []);
  useEffect(() => {
    if (selected !== null) document.querySelector(`[data-ticket="${selected}"]`)?.scrollIntoView({ block: 'nearest' });
  }, [selected]);

  const act = useCallback(
    (t: Ticket, a: TicketAction) => {
      select(t.id);
      void board.perform(t, a);
    },
    [board.perform, select],
  );

  const searchServer = async (e: Event) => {
    e.preventDefault();
    const q = search.trim();
    if (q === '') return;
    setSearchNote(null);
    try {
      const l = await call('listTickets', { query: { external_ref: q, limit: 20 } });
      setFound(l.data);
      if (l.data.length === 0 && results.length === 0) setSearchNote({ text: t('board.searchNothing', { query: q }), error: false });
    } catch (err) {
      if (!(err instanceof ApiError) || err.status !== 401) setSearchNote({ text: problemText(err), error: true });
    }
  };

  const handlers: ShortcutHandlers = {
    newTicket: () => document.getElementById('new-ref')?.focus(),
    search: () => searchRef.current?.focus(),
    help: () => setHelp((h) => !h),
    clear: () => {
      setSearch('');
      setFound([]);
      setSearchNote(null);
      select(null);
    },
    move: (delta: number) => {
      const list = orderRef.current;
      if (list.length === 0) return;
      const i = list.findIndex((t) => t.id === selectedRef.current);
      select(list[Math.max(0, Math.min(list.length - 1, i < 0 ? 0 : i + delta))]!.id);
    },
    act: (what) => {
      const current = orderRef.current.find((t) => t.id === selectedRef.current);
      if (current === undefined) return notify(t('board.selectFirst'), 'info');
      if (what === 'slip') return setSlip(current);
      act(current, what === 'ready' && current.status === 'ready' ? 'ring' : what);
    },
  };
  useShortcuts(handlers, slip === null);

  const card = (t: Ticket) => (
    <TicketCard
      key={t.id}
      ticket={t}
      now={now}
      timeZone={tz}
      selected={t.id === selected}
      busy={board.pending.has(t.id)}
      result={board.results.get(t.id)}
      closing={board.closing.get(t.id)}
      onUndo={(x) => board.undo(x.id)}
      onAction={act}
      onSlip={setSlip}
      onSelect={(x) => select(x.id)}
    />
  );
  const column = (id: string, title: string, list: Ticket[], empty: string) => (
    <section class={`column column-${id}`} aria-labelledby={`col-${id}`}>
      <h2 id={`col-${id}`}>
        {title} <span class="count">{list.length}</span>
      </h2>
      {list.length === 0 ? <p class="empty">{empty}</p> : <ul class="tickets">{list.map(card)}</ul>}
    </section>
  );

  return (
    <div class="board">
      {/* The screen's top-level heading, for screen readers (axe page-has-heading-one): the
          columns' headings sit under it; sighted staff see the board itself. */}
      <h1 class="sr-only">{t('nav.board')}</h1>
      <FirstRun tickets={[...board.tickets.values()]} />
      <div class="board-tools">
        <CreateTicket
          say={notify}
          onCreated={(x) => {
            board.upsert(x);
            setSlip(x);
          }}
        />
        <search>
          <form class="search" onSubmit={searchServer}>
            <label for="search">{t('board.searchLabel')}</label>
            <div class="search-row">
              <input
                id="search"
                ref={searchRef}
                type="search"
                value={search}
                autocomplete="off"
                aria-describedby={searchNote !== null ? 'search-note' : undefined}
                aria-invalid={searchNote?.error ? 'true' : undefined}
                onInput={(e) => {
                  setSearch(e.currentTarget.value);
                  setFound([]);
                  setSearchNote(null);
                }}
              />
              <button type="submit">{t('board.find')}</button>
            </div>
            {searchNote !== null && (
              <p id="search-note" class={searchNote.error ? 'field-error' : 'hint'} role={searchNote.error ? 'alert' : 'status'}>
                {searchNote.text}
              </p>
            )}
          </form>
        </search>
        <p class={`connection connection-${board.live}`} role="status">
          <Icon name={board.live === 'offline' ? 'unplugged' : 'plug'} />
          <span>{t(board.live === 'live' ? 'board.connected' : board.live === 'connecting' ? 'board.connecting' : 'board.offline')}</span>
        </p>
      </div>
      {board.loadError !== null && (
        <p class="field-error" role="alert">
          {t('board.loadFailed', { detail: board.loadError })}
        </p>
      )}
      {!board.loaded ? (
        <p class="empty">{t('board.loading')}</p>
      ) : searching ? (
        column('results', t('board.matches'), results, t('board.noMatch'))
      ) : (
        <div class="columns">
          {column('waiting', t('board.waiting'), waiting, t('board.noneWaiting'))}
          {column('ready', t('board.ready'), ready, t('board.noneReady'))}
          {column('closed', t('board.closed'), closed, t('board.noneClosed'))}
        </div>
      )}
      <ShortcutHelp open={help} onToggle={setHelp} />
      {slip !== null && <SlipDialog ticket={slip} branchName={session.branch.name} timeZone={tz} onClose={() => setSlip(null)} />}
    </div>
  );
}
