// Draws a snapshot of the ticket into the server's HTML (src/http/pages/customer-html.ts): the
// state on <html> (the stylesheet shows the actions by it), the texts, the announcements and which
// boxes show.
import { byId } from '../shared/dom.ts';
import type { PageSnapshot } from './types.ts';

/** Writes a text, hiding the element when there is none. */
export function setText(el: HTMLElement | null, text: string | null | undefined): void {
  if (!el) return;
  el.textContent = text || '';
  el.hidden = !text;
}

function renderAnnouncements(v: PageSnapshot): void {
  const ann = byId('ann-list');
  ann.replaceChildren(
    ...v.announcements.map((a) => {
      const p = document.createElement('p');
      p.textContent = a.message;
      setTimeout(() => {
        p.remove();
        byId('ann').hidden = ann.children.length === 0;
      }, a.expires_in_ms);
      return p;
    }),
  );
  byId('ann').hidden = v.announcements.length === 0;
}

export function render(v: PageSnapshot, main: HTMLElement): void {
  const root = document.documentElement;
  root.dataset.state = v.state;
  if (v.state !== 'ready') delete root.dataset.ringing;
  setText(byId('shop'), v.shop);
  setText(byId('num'), v.number);
  byId('ticket').dataset.len = String(Math.min(8, Math.max(3, v.number.length)));
  setText(byId('heading'), v.heading);
  setText(byId('detail'), v.detail);
  setText(byId('pos'), v.position_text);
  setText(byId('wait'), v.wait_text);
  renderAnnouncements(v);
  byId('alertbox').hidden = !v.open;
  const phonebox = document.getElementById('phonebox');
  if (phonebox) {
    phonebox.hidden = !v.phone_entry;
    setText(byId('phone-on'), v.phone_text);
  }
  main.dataset.rung = v.rung_text;
  document.title = v.title;
}
