// The receipt slip: number, QR code of the customer link, and a line on what to do with it.
// A print stylesheet (print.css) prints only the slip, sized for 58 mm or 80 mm receipt paper.
import { createPortal } from 'preact/compat';
import { useEffect, useRef, useState } from 'preact/hooks';
import { url } from '../api.ts';
import type { Ticket } from '../types.ts';
import { dateTime } from '../ui/format.ts';

export type Paper = '58' | '80';
const PAPER_KEY = 'readybell:paper';

export function SlipContent({ ticket: t, branchName, timeZone, paper, onQrLoad }: { ticket: Ticket; branchName: string; timeZone: string; paper: Paper; onQrLoad?: () => void }) {
  return (
    <div class={`slip paper-${paper}`}>
      <p class="slip-branch">{branchName}</p>
      <p class="slip-label">Your number</p>
      <p class="slip-number">{t.display_number}</p>
      <img class="slip-qr" src={url('ticketQr', { id: t.id })} alt={`QR code linking to the page for ticket ${t.display_number}`} onLoad={onQrLoad} />
      <p class="slip-hint">Scan to follow your order. We will ring your phone when it is ready.</p>
      {t.external_ref !== null && <p class="slip-ref">Order {t.external_ref}</p>}
      <p class="slip-time">{dateTime(t.created_at, timeZone)}</p>
    </div>
  );
}

export function SlipDialog({ ticket, branchName, timeZone, onClose }: { ticket: Ticket; branchName: string; timeZone: string; onClose: () => void }) {
  const dialog = useRef<HTMLDialogElement>(null);
  const [paper, setPaper] = useState<Paper>(() => (localStorage.getItem(PAPER_KEY) === '58' ? '58' : '80'));
  const [qrReady, setQrReady] = useState(false);

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
        <h2 id="slip-title">Receipt slip for {ticket.display_number}</h2>
        <div class="slip-preview"><SlipContent ticket={ticket} branchName={branchName} timeZone={timeZone} paper={paper} onQrLoad={() => setQrReady(true)} /></div>
        <fieldset class="paper">
          <legend>Paper width</legend>
          {(['58', '80'] as const).map((p) => (
            <label key={p}><input type="radio" name="paper" value={p} checked={paper === p} onChange={() => setPaper(p)} /> {p} mm</label>
          ))}
        </fieldset>
        <div class="dialog-actions">
          <button type="button" class="primary" onClick={print} disabled={!qrReady} autoFocus>Print slip</button>
          <button type="button" onClick={() => dialog.current?.close()}>Close</button>
        </div>
      </dialog>
      {createPortal(<SlipContent ticket={ticket} branchName={branchName} timeZone={timeZone} paper={paper} />, document.getElementById('print-root')!)}
    </>
  );
}
