// readybell customer page: live status over SSE, the ring (colour, chime, vibration, screen
// reader announcement), "Alert me" (sound unlock, wake lock, push where offered), and forms that
// post without leaving the page. The page works without this script
// (src/http/pages/customer-html.ts); this only makes it live. Built by scripts/build-pages.ts into
// one small classic script: the page's whole first load must stay light on a cheap phone.
import { byId } from '../shared/dom.ts';
import { type LiveStream, openLiveStream } from '../shared/live-stream.ts';
import { offerAlerts } from './alert.ts';
import { postFormsInPlace } from './forms.ts';
import { render } from './render.ts';
import { rings } from './ring.ts';
import type { PageSnapshot, RingEvent } from './types.ts';

function start(main: HTMLElement): void {
  const base = main.dataset.base!;
  const r = rings(base);
  let stream: LiveStream | null = null;

  // A snapshot from the stream or a form's answer; a closed ticket's stream is closed for good.
  const show = (v: PageSnapshot): void => {
    render(v, main);
    if (v.ring && !r.seen(v.ring.id)) r.ring(v.ring.id, v.rung_text);
    if (!v.open && stream) {
      stream.stop();
      stream = null;
    }
  };

  if (main.dataset.open === '1') {
    stream = openLiveStream({
      url: main.dataset.events!,
      heartbeatMs: Number(main.dataset.heartbeat) || 15000,
      events: {
        snapshot: (data) => show(JSON.parse(data) as PageSnapshot),
        ring: (data) => r.ring((JSON.parse(data) as RingEvent).ring_id, main.dataset.rung ?? ''),
        ping: () => {},
      },
      onLive: () => {
        byId('offline').hidden = true;
        document.documentElement.dataset.live = 'on';
      },
      onLost: () => {
        byId('offline').hidden = false;
      },
    });
  }
  postFormsInPlace(show);
  offerAlerts(main.dataset.open === '1');
  if ('serviceWorker' in navigator) navigator.serviceWorker.register('/sw.js', { scope: '/t/' }).catch(() => {});
}

const main = document.getElementById('rb');
if (main) start(main);
