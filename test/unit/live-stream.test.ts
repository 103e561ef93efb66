// The one reconnect of the customer page and the display board (web/shared/live-stream.ts), run
// against a stand-in EventSource with Node's mock timers: the browser's retry left alone, a retry by
// hand backing off 1 s → 30 s once the browser gives up, reset by a successful open, and the
// watchdog that replaces a link whose pings stopped.
import { afterEach, beforeEach, describe, it, mock } from 'node:test';
import assert from 'node:assert/strict';
import { type LiveStreamOptions, openLiveStream } from '../../web/shared/live-stream.ts';

class FakeSource {
  static made: FakeSource[] = [];
  readyState = 0;
  closed = false;
  onopen: (() => void) | null = null;
  onerror: (() => void) | null = null;
  readonly listeners = new Map<string, (e: { data: string }) => void>();
  readonly url: string;
  constructor(url: string) {
    this.url = url;
    FakeSource.made.push(this);
  }
  addEventListener(name: string, f: (e: { data: string }) => void): void {
    this.listeners.set(name, f);
  }
  close(): void {
    this.closed = true;
    this.readyState = 2;
  }
  emit(name: string, data = '{}'): void {
    this.listeners.get(name)?.({ data });
  }
  /** The browser gives up: an error status closes the stream for good. */
  fail(): void {
    this.readyState = 2;
    this.onerror?.();
  }
}

const last = (): FakeSource => FakeSource.made.at(-1)!;
const log: string[] = [];
const options = (extra: Partial<LiveStreamOptions> = {}): LiveStreamOptions => ({
  url: '/t/x/events',
  heartbeatMs: 15_000,
  events: { snapshot: (d) => log.push(`snapshot ${d}`), ping: () => {} },
  onLive: () => log.push('live'),
  onLost: () => log.push('lost'),
  onGaveUp: () => log.push('gave up'),
  ...extra,
});

beforeEach(() => {
  FakeSource.made = [];
  log.length = 0;
  (globalThis as { window?: unknown }).window = { EventSource: FakeSource };
  (globalThis as { EventSource?: unknown }).EventSource = FakeSource;
  mock.timers.enable({ apis: ['setTimeout', 'setInterval', 'Date'] });
});
afterEach(() => {
  mock.timers.reset();
  delete (globalThis as { window?: unknown }).window;
  delete (globalThis as { EventSource?: unknown }).EventSource;
});

describe('openLiveStream', () => {
  it('connects at once; each named event proves the link alive and gets its data', () => {
    const s = openLiveStream(options());
    assert.equal(FakeSource.made.length, 1);
    assert.equal(last().url, '/t/x/events');
    last().emit('snapshot', '{"a":1}');
    assert.deepEqual(log, ['live', 'snapshot {"a":1}']);
    s.stop();
  });

  it("leaves the browser's own retry alone, and retries by hand once it gives up, backing off to 30 s", () => {
    const s = openLiveStream(options());
    last().onerror?.(); // still CONNECTING: the browser retries
    assert.deepEqual(log, ['lost']);
    assert.equal(FakeSource.made.length, 1);
    const waits: number[] = [];
    for (let i = 0; i < 7; i++) {
      const before: number = FakeSource.made.length;
      last().fail();
      assert.equal(last().closed, true);
      let waited = 0;
      while (FakeSource.made.length === before) {
        mock.timers.tick(250);
        waited += 250;
      }
      waits.push(waited);
    }
    assert.deepEqual(waits, [1000, 2000, 4000, 8000, 16000, 30000, 30000]);
    assert.equal(log.filter((l) => l === 'gave up').length, 7);
    s.stop();
  });

  it('a successful open starts the back-off again from 1 s', () => {
    const s = openLiveStream(options());
    last().fail();
    mock.timers.tick(1000);
    last().fail();
    mock.timers.tick(2000);
    last().onopen?.();
    last().fail();
    const count = FakeSource.made.length;
    mock.timers.tick(1000);
    assert.equal(FakeSource.made.length, count + 1);
    s.stop();
  });

  it('replaces a link that went quiet for 2.5 heartbeats, without an error event', () => {
    const s = openLiveStream(options());
    const first = last();
    mock.timers.tick(35_000);
    assert.equal(FakeSource.made.length, 1, 'not yet: 35 s < 37.5 s');
    first.emit('ping');
    mock.timers.tick(35_000);
    assert.equal(FakeSource.made.length, 1, 'a ping resets the watch');
    mock.timers.tick(5_000);
    assert.equal(FakeSource.made.length, 2);
    assert.equal(first.closed, true);
    assert.equal(log.at(-1), 'lost');
    s.stop();
  });

  it('stop closes the stream for good: no retry, no watchdog', () => {
    const s = openLiveStream(options());
    last().fail();
    s.stop();
    mock.timers.tick(120_000);
    assert.equal(FakeSource.made.length, 1);
  });
});
