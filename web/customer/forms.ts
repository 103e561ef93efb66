// The page's forms ("On my way", "Need 5 more minutes", "Text me") post without leaving the page
// and draw the snapshot they answer with; without this script they post as plain forms.
import { byId } from '../shared/dom.ts';
import { setText } from './render.ts';
import { unlockSound } from './sound.ts';
import type { PageSnapshot } from './types.ts';

// "Text me": a refused number is said beside the field; a kept one is shown only masked (the
// snapshot's phone_text), so the field is emptied.
function phoneAnswered(form: HTMLFormElement, error: string | null): void {
  const input = byId<HTMLInputElement>('phone');
  setText(byId('phone-error'), error);
  if (error) {
    input.setAttribute('aria-invalid', 'true');
    input.focus();
  } else {
    input.removeAttribute('aria-invalid');
    form.reset();
  }
}

function answered(form: HTMLFormElement, r: Response, body: { detail?: string }, show: (v: PageSnapshot) => void): void {
  const phone = form.id === 'phone-form';
  if (phone) phoneAnswered(form, r.ok ? null : r.status === 422 ? (body.detail ?? null) : null);
  if (r.ok) show(body as PageSnapshot);
  else if (!(phone && r.status === 422)) location.reload();
}

export function postFormsInPlace(show: (v: PageSnapshot) => void): void {
  document.addEventListener('submit', (e) => {
    const form = e.target as HTMLFormElement;
    if (!form.action) return;
    e.preventDefault();
    unlockSound();
    fetch(form.action, {
      method: 'POST',
      headers: { accept: 'application/json', 'content-type': 'application/x-www-form-urlencoded' },
      body: new URLSearchParams(new FormData(form) as unknown as Record<string, string>),
    })
      .then((r) => r.json().then((body: { detail?: string }) => answered(form, r, body, show)))
      .catch(() => form.submit());
  });
}
