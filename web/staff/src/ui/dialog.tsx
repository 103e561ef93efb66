// The page's own dialogs instead of the browser's confirm(): a modal <dialog> (the rest of the page
// is inert while it is open, so focus stays inside; Escape cancels), labelled by its title and
// described by its text. A confirmed action runs while the dialog stays open, and if it fails its
// error is shown in the dialog, next to the button that caused it; focus returns to the control
// that opened the dialog.
import { createContext, type ComponentChildren } from 'preact';
import { useCallback, useContext, useEffect, useRef, useState } from 'preact/hooks';
import { t } from '../i18n/i18n.ts';
import { problemText } from './field-errors.tsx';

export type ConfirmRequest = {
  title: string;
  body: string;
  confirm: string;
  danger?: boolean;
  /** Runs on confirm; a throw keeps the dialog open with the error shown. */
  action: () => Promise<unknown>;
};

type Open = (r: ConfirmRequest) => Promise<boolean>;
const Ctx = createContext<Open>(async () => false);

/** `await confirm({ … })` is true once the action succeeded, false when staff cancelled. */
export function useConfirm(): Open {
  return useContext(Ctx);
}

type Pending = ConfirmRequest & { done: (ok: boolean) => void; opener: Element | null };

export function ConfirmProvider({ children }: { children: ComponentChildren }) {
  const [pending, setPending] = useState<Pending | null>(null);
  const open = useCallback<Open>((r) => new Promise((done) => setPending({ ...r, done, opener: document.activeElement })), []);
  return (
    <Ctx.Provider value={open}>
      {children}
      {pending !== null && <ConfirmDialog key={pending.title + pending.body} request={pending} onEnd={() => setPending(null)} />}
    </Ctx.Provider>
  );
}

function ConfirmDialog({ request, onEnd }: { request: Pending; onEnd: () => void }) {
  const dialog = useRef<HTMLDialogElement>(null);
  const [busy, setBusy] = useState(false);
  const [error, setError] = useState<string | null>(null);
  const result = useRef(false);
  const cancel = useRef<HTMLButtonElement>(null);

  useEffect(() => {
    const d = dialog.current!;
    d.showModal();
    // Cancel, the answer that does nothing, has focus when the dialog opens.
    cancel.current!.focus();
    return () => {
      if (d.open) d.close();
    };
  }, []);

  const finish = () => {
    request.done(result.current);
    onEnd();
    if (request.opener instanceof HTMLElement && request.opener.isConnected) request.opener.focus();
  };
  const go = async () => {
    setBusy(true);
    setError(null);
    try {
      await request.action();
      result.current = true;
      dialog.current?.close();
    } catch (err) {
      setError(problemText(err));
    } finally {
      setBusy(false);
    }
  };

  return (
    <dialog ref={dialog} class="confirm-dialog" aria-labelledby="confirm-title" aria-describedby="confirm-body" onClose={finish}>
      <h2 id="confirm-title">{request.title}</h2>
      <p id="confirm-body">{request.body}</p>
      {error !== null && (
        <p id="confirm-error" class="field-error" role="alert">
          {error}
        </p>
      )}
      <div class="dialog-actions">
        <button type="button" ref={cancel} onClick={() => dialog.current?.close()}>
          {t('dialog.cancel')}
        </button>
        <button
          type="button"
          class={request.danger ? 'danger-solid' : 'primary'}
          disabled={busy}
          onClick={go}
          aria-describedby={error !== null ? 'confirm-error' : undefined}
        >
          {busy ? t('dialog.working') : request.confirm}
        </button>
      </div>
    </dialog>
  );
}
