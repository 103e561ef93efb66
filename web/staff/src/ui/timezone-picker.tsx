// A searchable time zone picker: the ARIA 1.2 combobox pattern (a text box that filters a listbox
// of the browser's ~420 IANA zones, Intl.supportedValuesOf) instead of a native list to scroll.
// Typing "paris", "new york" or "+05:30" narrows the list; ↓/↑ move, Enter picks, Escape closes
// (a second Escape restores the saved zone). Only a zone from the list can be chosen.
import { useEffect, useMemo, useRef, useState } from 'preact/hooks';
import { language, t } from '../i18n/i18n.ts';

const SHOWN = 60;

function allZones(): string[] {
  try {
    return Intl.supportedValuesOf('timeZone');
  } catch {
    return ['UTC'];
  }
}

function offsetOf(zone: string): string {
  try {
    const part = new Intl.DateTimeFormat('en', { timeZone: zone, timeZoneName: 'longOffset' })
      .formatToParts(new Date())
      .find((p) => p.type === 'timeZoneName');
    return part?.value === 'GMT' ? 'GMT+00:00' : (part?.value ?? '');
  } catch {
    return '';
  }
}

// Browsers still list some zones by their old names (Chromium: Asia/Calcutta); staff search by the
// city's name today.
const RENAMED: Record<string, string> = {
  'Asia/Calcutta': 'Kolkata',
  'Europe/Kiev': 'Kyiv',
  'Asia/Saigon': 'Ho Chi Minh',
  'Asia/Rangoon': 'Yangon',
  'Asia/Katmandu': 'Kathmandu',
  'America/Godthab': 'Nuuk',
  'Atlantic/Faeroe': 'Faroe',
  'Pacific/Ponape': 'Pohnpei',
  'Pacific/Truk': 'Chuuk',
  'America/Buenos_Aires': 'Argentina',
};

function genericName(zone: string): string {
  try {
    return (
      new Intl.DateTimeFormat(language(), { timeZone: zone, timeZoneName: 'longGeneric' })
        .formatToParts(new Date())
        .find((p) => p.type === 'timeZoneName')?.value ?? ''
    );
  } catch {
    return '';
  }
}

const readable = (zone: string): string => zone.replace(/_/g, ' ') + (RENAMED[zone] !== undefined ? ` (${RENAMED[zone]})` : '');
const fold = (s: string): string =>
  s
    .normalize('NFD')
    .replace(/\p{Diacritic}/gu, '')
    .toLowerCase()
    .replace(/[_/]/g, ' ');

type Props = { id: string; value: string; onChange: (zone: string) => void; invalid?: boolean; describedBy?: string };

export function TimeZonePicker({ id, value, onChange, invalid, describedBy }: Props) {
  const zones = useMemo(() => {
    const list = allZones();
    return (list.includes(value) ? list : [value, ...list]).map((z) => {
      const offset = offsetOf(z);
      const name = genericName(z);
      return { zone: z, offset, name, key: fold(`${readable(z)} ${offset} ${name}`) };
    });
  }, []);
  const [text, setText] = useState(readable(value));
  const [open, setOpen] = useState(false);
  const [active, setActive] = useState(0);
  const listRef = useRef<HTMLDivElement>(null);
  const listId = `${id}-list`;
  useEffect(() => setText(readable(value)), [value]);

  const query = fold(text.trim());
  const filtering = open && text !== readable(value);
  const matches = filtering && query !== '' ? zones.filter((z) => query.split(/\s+/).every((w) => z.key.includes(w))) : zones;
  const shown = matches.slice(0, SHOWN);

  const pick = (zone: string) => {
    onChange(zone);
    setText(readable(zone));
    setOpen(false);
  };
  const move = (to: number) => {
    const i = Math.max(0, Math.min(shown.length - 1, to));
    setActive(i);
    listRef.current?.children[i]?.scrollIntoView({ block: 'nearest' });
  };
  const onKey = (e: KeyboardEvent) => {
    if (e.key === 'ArrowDown' || e.key === 'ArrowUp') {
      e.preventDefault();
      if (!open) {
        setOpen(true);
        setActive(
          Math.max(
            0,
            shown.findIndex((z) => z.zone === value),
          ),
        );
      } else move(active + (e.key === 'ArrowDown' ? 1 : -1));
    } else if (e.key === 'Enter' && open) {
      e.preventDefault();
      const z = shown[active];
      if (z !== undefined) pick(z.zone);
    } else if (e.key === 'Escape') {
      if (open) {
        e.preventDefault();
        e.stopPropagation();
        setOpen(false);
      } else {
        setText(readable(value));
      }
    }
  };
  const activeId = open && shown[active] !== undefined ? `${id}-opt-${active}` : undefined;

  return (
    <div class="combobox">
      <input
        id={id}
        type="text"
        role="combobox"
        autocomplete="off"
        spellcheck={false}
        aria-autocomplete="list"
        aria-expanded={open}
        aria-controls={listId}
        aria-activedescendant={activeId}
        aria-invalid={invalid ? 'true' : undefined}
        aria-describedby={`${id}-hint${describedBy ? ` ${describedBy}` : ''}`}
        value={text}
        onInput={(e) => {
          setText(e.currentTarget.value);
          setOpen(true);
          setActive(0);
        }}
        onKeyDown={onKey}
        onClick={() => setOpen(true)}
        onBlur={() => {
          setOpen(false);
          setText(readable(value));
        }}
      />
      <span class="combobox-offset" aria-hidden="true">
        {offsetOf(value)}
      </span>
      <p id={`${id}-hint`} class="sr-only">
        {t('tz.hint')}
      </p>
      <div id={listId} role="listbox" ref={listRef} class="combobox-list" hidden={!open} aria-label={t('tz.list')}>
        {shown.map((z, i) => (
          // biome-ignore lint/a11y/useFocusableInteractive: focus stays in the text box, which names the active option with aria-activedescendant (the ARIA combobox pattern)
          <div
            key={z.zone}
            id={`${id}-opt-${i}`}
            role="option"
            aria-selected={i === active}
            class={z.zone === value ? 'current' : undefined}
            onMouseDown={(e) => {
              e.preventDefault();
              pick(z.zone);
            }}
          >
            <span>{readable(z.zone)}</span> <span class="hint">{z.name === '' ? z.offset : `${z.name} · ${z.offset}`}</span>
          </div>
        ))}
        {matches.length === 0 && (
          <div class="empty" role="presentation">
            {t('tz.none')}
          </div>
        )}
        {matches.length > SHOWN && (
          <div class="hint" role="presentation">
            {t('tz.more', { count: matches.length - SHOWN })}
          </div>
        )}
      </div>
      <span class="sr-only" aria-live="polite">
        {open ? t('tz.count', { count: matches.length }) : ''}
      </span>
    </div>
  );
}
