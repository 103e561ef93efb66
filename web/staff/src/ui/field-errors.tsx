// Errors where they belong: a problem's `errors[]` points at fields (JSON Pointers such as
// `/email` or `/customer_page/language`); each is shown under its field, and what points at no
// field of the form is shown once, under the form's button. Both are announced (role=alert).
import { useCallback, useState } from 'preact/hooks';
import { ApiError } from '../api.ts';
import { t } from '../i18n/i18n.ts';

export type FormErrors = { fields: Record<string, string>; form: string | null };
const NONE: FormErrors = { fields: {}, form: null };

/** The message of anything thrown by a request, in words for staff. */
export function problemText(err: unknown): string {
  if (!(err instanceof ApiError)) return t('error.generic');
  if (err.status === 0) return t('error.offline');
  return err.problem.detail;
}

/**
 * Splits a failure into per-field messages (for the fields the form has) and a message for the
 * form as a whole. `pointers` maps a pointer to the form's field name when they differ.
 */
export function formErrors(err: unknown, fields: readonly string[], pointers: Record<string, string> = {}): FormErrors {
  const out: FormErrors = { fields: {}, form: null };
  const unplaced: string[] = [];
  if (err instanceof ApiError) {
    const errors = err.problem.errors ?? [];
    for (const e of errors) {
      const name = pointers[e.pointer] ?? e.pointer.replace(/^\//, '').replace(/\//g, '.');
      // A conflict about one field ("This email already has a readybell user.") says it best in
      // its own sentence; schema checks list fragments per field ("must be <= 72").
      const text = errors.length === 1 && err.problem.code !== 'validation-failed' ? err.problem.detail : capitalised(e.detail);
      if (fields.includes(name)) out.fields[name] ??= text;
      else unplaced.push(e.detail);
    }
  }
  if (Object.keys(out.fields).length === 0 || unplaced.length > 0) out.form = problemText(err);
  return out;
}

// Schema messages are fragments ("must be string", "is required") read under the field's label.
const capitalised = (detail: string): string => detail.charAt(0).toUpperCase() + detail.slice(1);

export function useFormErrors(fields: readonly string[], pointers?: Record<string, string>) {
  const [errors, setErrors] = useState<FormErrors>(NONE);
  const fail = useCallback((err: unknown) => setErrors(formErrors(err, fields, pointers)), [fields.join(), pointers]);
  const reset = useCallback(() => setErrors(NONE), []);
  /** Props that tie an input to its message: aria-invalid and aria-describedby. */
  const bind = (name: string, id: string) =>
    errors.fields[name] !== undefined ? { 'aria-invalid': 'true' as const, 'aria-describedby': `${id}-error` } : {};
  return { errors, fail, reset, bind };
}

export function FieldError({ id, text }: { id: string; text: string | undefined | null }) {
  if (text === undefined || text === null) return null;
  return (
    <p id={`${id}-error`} class="field-error" role="alert">
      {text}
    </p>
  );
}
