// The live stream (Server-Sent Events) of the customer page and the display board, with the one
// reconnect both need: the browser's own retry while it tries, a retry by hand backing off from
// 1 s to 30 s once it gives up (an error status closes an EventSource for good), and a watchdog
// for a link that died silently (a phone switching networks, a TV's Wi-Fi): no error event comes,
// only the server's pings stop.

export type LiveStreamOptions = {
  url: string;
  /** How often the server pings; 2.5 of these without a message mean the link is dead. */
  heartbeatMs: number;
  /** The named events and what each does with its data; every one of them proves the link alive. */
  events: Record<string, (data: string) => void>;
  /** A message arrived: the page may say it is live again. */
  onLive(): void;
  /** An error, or the watchdog found the link dead: what the page shows may be out of date. */
  onLost(): void;
  /** The browser gave up on the stream (an error status); the page may ask why before the retry. */
  onGaveUp?(): void;
};

export type LiveStream = {
  /** Closes the stream for good: no retry, no watchdog. */
  stop(): void;
};

const FIRST_RETRY_MS = 1000;
const MAX_RETRY_MS = 30000;
const CLOSED = 2; // EventSource.CLOSED

export function openLiveStream(o: LiveStreamOptions): LiveStream {
  let source: EventSource | null = null;
  let lastMessage = Date.now();
  let retryMs = FIRST_RETRY_MS;
  let retry: ReturnType<typeof setTimeout> | undefined;
  let stopped = false;

  function drop(): void {
    if (source) source.close();
    source = null;
  }

  function heard(): void {
    lastMessage = Date.now();
    o.onLive();
  }

  function retryLater(): void {
    retry = setTimeout(connect, retryMs);
    retryMs = Math.min(retryMs * 2, MAX_RETRY_MS);
  }

  function connect(): void {
    if (stopped || !window.EventSource) return;
    const s = new EventSource(o.url);
    source = s;
    // Object.keys, not entries: the board keeps to what TV browsers of ES2015 offer.
    for (const name of Object.keys(o.events)) {
      s.addEventListener(name, (e) => {
        heard();
        o.events[name]!((e as MessageEvent<string>).data);
      });
    }
    s.onopen = () => {
      retryMs = FIRST_RETRY_MS;
    };
    s.onerror = () => {
      o.onLost();
      // CLOSED means the browser gave up (an error status); reconnect by hand, backing off.
      if (source === s && s.readyState === CLOSED) {
        drop();
        o.onGaveUp?.();
        retryLater();
      }
    };
  }

  const watchdog = setInterval(
    () => {
      if (source && Date.now() - lastMessage > o.heartbeatMs * 2.5) {
        drop();
        o.onLost();
        connect();
      }
    },
    Math.min(o.heartbeatMs, 5000),
  );

  connect();
  return {
    stop() {
      stopped = true;
      clearTimeout(retry);
      clearInterval(watchdog);
      drop();
    },
  };
}
