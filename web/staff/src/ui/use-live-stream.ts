// A screen's live connection to GET /v1/stream: whether it is live, the screen's own handling of
// each ticket message, a fresh read after every (re)connect (so a screen that lost its connection
// never keeps a stale state), and, when the server refuses the stream (an ended session, a
// restart), a retry once the session is known to be good. The board and Insights both use it.
import { useEffect, useRef, useState } from 'preact/hooks';
import { call, openStream } from '../api.ts';
import type { LiveMessage } from '../types.ts';

export type LiveState = 'connecting' | 'live' | 'offline';

export type LiveHandlers = {
  /** After every (re)connect: read again what may have changed while the stream was down. */
  onReady: () => void;
  /** A message about one ticket. */
  onTicket: (m: LiveMessage) => void;
  /** The screen is going: cancel what the handlers scheduled. */
  onStop?: () => void;
};

export function useLiveStream(handlers: LiveHandlers): LiveState {
  const [live, setLive] = useState<LiveState>('connecting');
  // The stream stays open while the handlers change (a new period chosen): it calls the latest.
  const current = useRef(handlers);
  current.current = handlers;

  useEffect(() => {
    let es: EventSource | null = null;
    let stopped = false;
    let retry: ReturnType<typeof setTimeout> | undefined;
    const connect = () => {
      es = openStream();
      es.addEventListener('ready', () => {
        setLive('live');
        current.current.onReady();
      });
      es.onmessage = (ev: MessageEvent<string>) => {
        const m = JSON.parse(ev.data) as LiveMessage;
        if (m.ticket_id !== undefined) current.current.onTicket(m);
      };
      es.onerror = () => {
        setLive('offline');
        if (es?.readyState !== EventSource.CLOSED || stopped) return;
        es.close();
        retry = setTimeout(() => {
          call('getSession').then(
            () => {
              if (!stopped) connect();
            },
            () => {},
          );
        }, 3000);
      };
    };
    connect();
    return () => {
      stopped = true;
      clearTimeout(retry);
      current.current.onStop?.();
      es?.close();
    };
  }, []);

  return live;
}
