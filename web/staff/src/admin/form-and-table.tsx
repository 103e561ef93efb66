// The markup every admin screen repeats around its own fields and rows: a labelled field with its
// error, the form's submit button with the error that belongs to no field, the list's load error,
// and the list table (a hidden caption, column headings, an actions column, an "empty" row). One
// copy keeps the ids that tie errors to their controls (aria-describedby) and the table's
// accessible structure the same on every screen.
import type { ComponentChildren } from 'preact';
import { t } from '../i18n/i18n.ts';
import { FieldError, type useFormErrors } from '../ui/field-errors.tsx';

/**
 * Where a form's pieces sit: `inline` (a row of fields, each label wrapping its control, the
 * button beside them) or `settings` (a column: label, control, error).
 */
export type FormLayout = 'inline' | 'settings';

function LabelText({ label, note }: { label: string; note?: string | undefined }) {
  return (
    <>
      {label}
      {note !== undefined && (
        <>
          {' '}
          <small>{note}</small>
        </>
      )}
    </>
  );
}

/** A field: its label (and a small note), the control given as children, and its error under it. */
export function Field(p: {
  id: string;
  label: string;
  note?: string;
  error: string | undefined | null;
  layout?: FormLayout;
  children: ComponentChildren;
}) {
  if (p.layout === 'settings')
    return (
      <>
        <label for={p.id}>
          <LabelText label={p.label} note={p.note} />
        </label>
        {p.children}
        <FieldError id={p.id} text={p.error} />
      </>
    );
  return (
    <label for={p.id}>
      <span>
        <LabelText label={p.label} note={p.note} />
      </span>
      {p.children}
      <FieldError id={p.id} text={p.error} />
    </label>
  );
}

/** The form's submit button and, under it, what went wrong that points at no field (`${id}-error`). */
export function FormSubmit(p: { id: string; label: string; error: string | null; disabled?: boolean; layout?: FormLayout }) {
  const button = (
    <button type="submit" class="primary" disabled={p.disabled} aria-describedby={p.error !== null ? `${p.id}-error` : undefined}>
      {p.label}
    </button>
  );
  if (p.layout === 'settings')
    return (
      <>
        <div class="dialog-actions">{button}</div>
        <FieldError id={p.id} text={p.error} />
      </>
    );
  return (
    <div class="form-submit">
      {button}
      <FieldError id={p.id} text={p.error} />
    </div>
  );
}

/** Why a list could not be loaded, announced. */
export function LoadError({ error }: { error: string | null }) {
  if (!error) return null;
  return (
    <p class="field-error" role="alert">
      {error}
    </p>
  );
}

export type Column = { label: string /** Hidden on a narrow screen. */; wide?: boolean };

/**
 * A list table: the columns' headings and a last one for the row's buttons, named for screen
 * readers only; `empty` (when there are no rows) fills one row across.
 */
export function ListTable(p: {
  caption: string;
  /** The caption is shown (a table inside a panel); otherwise only screen readers read it. */
  showCaption?: boolean;
  /** A class beside `list` that sizes this table's columns. */
  kind?: string;
  /** Column classes (a <colgroup>), when the table sets widths. */
  cols?: string[];
  columns: Column[];
  empty: string | null;
  children: ComponentChildren;
}) {
  return (
    <div class="table-wrap">
      <table class={p.kind === undefined ? 'list' : `list ${p.kind}`}>
        <caption class={p.showCaption ? undefined : 'sr-only'}>{p.caption}</caption>
        {p.cols !== undefined && (
          <colgroup>
            {p.cols.map((c, i) => (
              <col key={i} class={c} />
            ))}
          </colgroup>
        )}
        <thead>
          <tr>
            {p.columns.map((c) => (
              <th key={c.label} scope="col" class={c.wide ? 'wide-only' : undefined}>
                {c.label}
              </th>
            ))}
            <th scope="col">
              <span class="sr-only">{t('table.actions')}</span>
            </th>
          </tr>
        </thead>
        <tbody>
          {p.empty !== null && (
            <tr>
              <td colSpan={p.columns.length + 1} class="empty">
                {p.empty}
              </td>
            </tr>
          )}
          {p.children}
        </tbody>
      </table>
    </div>
  );
}

/** What a TextField needs of its form (useFormErrors): the field's message and the props that tie it to the input. */
type BoundForm = Pick<ReturnType<typeof useFormErrors>, 'errors' | 'bind'>;

/**
 * A required one-line field bound to its form: the label, the input, the field's error under it.
 * Sign-up, reset, forgot, the account's password and email change wrote this out each time.
 */
export function TextField(p: {
  form: BoundForm;
  /** The body field its errors point at (`/email`). */
  name: string;
  id: string;
  label: string;
  note?: string;
  layout?: FormLayout;
  type: 'email' | 'password' | 'text';
  autocomplete: string;
  minLength?: number;
  maxLength?: number;
  value: string;
  onValue: (value: string) => void;
}) {
  const input = {
    id: p.id,
    autocomplete: p.autocomplete,
    required: true,
    minLength: p.minLength,
    maxLength: p.maxLength,
    value: p.value,
    onInput: (e: { currentTarget: HTMLInputElement }) => p.onValue(e.currentTarget.value),
    ...p.form.bind(p.name, p.id),
  };
  return (
    <Field id={p.id} label={p.label} note={p.note} error={p.form.errors.fields[p.name]} layout={p.layout}>
      {/* Preact types each input type apart: one literal each. */}
      {p.type === 'password' ? (
        <input type="password" {...input} />
      ) : p.type === 'email' ? (
        <input type="email" {...input} />
      ) : (
        <input type="text" {...input} />
      )}
    </Field>
  );
}
