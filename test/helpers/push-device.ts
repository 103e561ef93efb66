// A phone for the tests: the customer page's real push handlers (web/push/push-sw.js) run in a
// context that stands in for a browser's service worker, with its notification tray and Cache
// Storage. What a test feeds it are the payloads a push service received (TestPushService), as the
// browser would get them; `alerts` counts the notifications shown with sound and vibration.
import { readFileSync } from 'node:fs';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import vm from 'node:vm';

const SCRIPT = readFileSync(path.resolve(path.dirname(fileURLToPath(import.meta.url)), '../../web/push/push-sw.js'), 'utf8');

export type ShownNotification = {
  title: string;
  tag: string;
  silent: boolean;
  renotify: boolean;
  data: { url: string; ring_id: string | null };
};

/** Cache Storage as the handlers use it: named caches of request URL → response. */
class FakeCaches {
  private readonly stores = new Map<string, Map<string, Response>>();
  async open(name: string) {
    let store = this.stores.get(name);
    if (store === undefined) this.stores.set(name, (store = new Map()));
    const entries = store;
    return {
      match: async (req: Request) => entries.get(req.url),
      put: async (req: Request, res: Response) => void entries.set(req.url, res),
      keys: async () => [...entries.keys()].map((url) => new Request(url)),
      delete: async (req: Request) => entries.delete(req.url),
    };
  }
}

export class PushDevice {
  /** Every notification shown, in order (a replacement included). */
  readonly shown: ShownNotification[] = [];
  private readonly listeners = new Map<string, (event: unknown) => void>();

  constructor(origin = 'http://localhost:3000') {
    const self = {
      location: { origin },
      registration: {
        showNotification: async (title: string, o: Record<string, unknown>) => {
          this.shown.push({
            title,
            tag: String(o.tag),
            silent: o.silent === true,
            renotify: o.renotify === true,
            data: o.data as ShownNotification['data'],
          });
        },
      },
      clients: { matchAll: async () => [], openWindow: async () => null },
      addEventListener: (type: string, fn: (event: unknown) => void) => this.listeners.set(type, fn),
    };
    vm.runInNewContext(SCRIPT, { self, caches: new FakeCaches(), Request, Response, URL, Promise, encodeURIComponent });
  }

  /** Delivers one push (its decrypted payload) and waits for the handler to finish. */
  async push(payload: unknown): Promise<void> {
    const pending: Array<Promise<unknown>> = [];
    this.listeners.get('push')!({ data: { json: () => payload }, waitUntil: (p: Promise<unknown>) => pending.push(p) });
    await Promise.all(pending);
  }

  /** Notifications that rang or vibrated the phone: what the customer noticed. */
  get alerts(): ShownNotification[] {
    return this.shown.filter((n) => !n.silent);
  }
}
