// The receipt slip: number, QR code of the customer link, and a line on what to do with it.
// A print stylesheet (print.css) prints only the slip, sized for 58 mm or 80 mm receipt paper.
import { createPortal } from 'preact/compat';
import { useEffect, useRef, useState } from 'preact/hooks';
import { image } from '../api.ts';
import { t } from '../i18n/i18n.ts';
import type { Ticket } from '../types.ts';
import { dateTime } from '../ui/format.ts';

export type Paper = '58' | '80';
const PAPER_KEY = 'readybell:paper';

/**
 * The QR code comes from the API (GET /v1/tickets/{id}/qr.svg) through api.ts, so it is asked for
 * in the page's mode like every other request: a test ticket's code is found in test mode.
 */
function useQr(id: string): string | null {
  const [src, setSrc] = useState<string | null>(null);
  useEffect(() => {
    let href: string | null = null;
    let live = true;
    image('getTicketQrSvg', { id }).then(
      (u) => {
        if (live) setSrc((href = u));
        else URL.revokeObjectURL(u);
      },
      () => {},
    );
    return () => {
      live = false;
      if (href !== null) URL.revokeObjectURL(href);
    };
  }, [id]);
  return src;
}

export function SlipContent({
  ticket: x,
  branchName,
  timeZone,
  paper,
  qr,
  onQrLoad,
}: {
  ticket: Ticket;
  branchName: string;
  timeZone: string;
  paper: Paper;
  qr: string | null;
  onQrLoad?: () => void;
}) {
  return (
    <div class={`slip paper-${paper}`}>
      <p class="slip-branch">{branchName}</p>
      <p class="slip-label">{t('slip.yourNumber')}</p>
      <p class="slip-number">{x.display_number}</p>
      {qr !== null && <img class="slip-qr" src={qr} alt={t('slip.qrAlt', { number: x.display_number })} onLoad={onQrLoad} />}
      <p class="slip-hint">{t('slip.hint')}</p>
      {x.external_ref !== null && <p class="slip-ref">{t('slip.order', { ref: x.external_ref })}</p>}
      <p class="slip-time">{dateTime(x.created_at, timeZone)}</p>
    </div>
  );
}

export function SlipDialog({
  ticket,
  branchName,
  timeZone,
  onClose,
}: {
  ticket: Ticket;
  branchName: string;
  timeZone: string;
  onClose: () => void;
}) {
  const dialog = useRef<HTMLDialogElement>(null);
  const [paper, setPaper] = useState<Paper>(() => (localStorage.getItem(PAPER_KEY) === '58' ? '58' : '80'));
  const [qrReady, setQrReady] = useState(false);
  const qr = useQr(ticket.id);

  useEffect(() => {
    const d = dialog.current!;
    if (!d.open) d.showModal();
    return () => d.close();
  }, []);
  useEffect(() => {
    document.documentElement.dataset.paper = paper;
    localStorage.setItem(PAPER_KEY, paper);
  }, [paper]);

  const print = () => window.print();

  return (
    <>
      <dialog ref={dialog} class="slip-dialog" aria-labelledby="slip-title" onClose={onClose} onCancel={onClose}>
        <h2 id="slip-title">{t('slip.title', { number: ticket.display_number })}</h2>
        <div class="slip-preview">
          <SlipContent
            ticket={ticket}
            branchName={branchName}
            timeZone={timeZone}
            paper={paper}
            qr={qr}
            onQrLoad={() => setQrReady(true)}
          />
        </div>
        <fieldset class="paper">
          <legend>{t('slip.paper')}</legend>
          {(['58', '80'] as const).map((p) => (
            <label key={p}>
              <input type="radio" name="paper" value={p} checked={paper === p} onChange={() => setPaper(p)} /> {p} mm
            </label>
          ))}
        </fieldset>
        <div class="dialog-actions">
          {/* Focus is the dialog's own when it opens (its first control): Print cannot take it then,
              as it stays disabled until the QR code has loaded. */}
          <button type="button" class="primary" onClick={print} disabled={!qrReady}>
            {t('slip.print')}
          </button>
          <button type="button" onClick={() => dialog.current?.close()}>
            {t('dialog.close')}
          </button>
        </div>
      </dialog>
      {createPortal(
        <SlipContent ticket={ticket} branchName={branchName} timeZone={timeZone} paper={paper} qr={qr} />,
        document.getElementById('print-root')!,
      )}
    </>
  );
}
