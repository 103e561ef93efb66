// APNs for Wallet passes: HTTP/2 with node:http2, authenticated by the Pass Type ID certificate
// (client certificate TLS), topic = the pass type id, an empty JSON payload. The push carries
// nothing: it tells the device to ask the PassKit web service what changed (Apple's "Updating a
// Pass"). One session is kept and reused (APNs asks for long-lived connections) and replaced when
// it closes or fails; every request is bounded by its own timeout.
import http2 from 'node:http2';
import type { AppleWalletConfig } from '../../../core/config.ts';

/** What APNs answered: `gone` when the token will never work again (410, or 400 BadDeviceToken). */
export type ApnsResult = { ok: true } | { ok: false; gone: boolean; detail: string };

export type ApnsSender = { send(pushToken: string, signal?: AbortSignal): Promise<ApnsResult>; close(): void };

/** Tokens are hex (64 characters today); anything else never reaches the request path. */
const TOKEN = /^[0-9a-fA-F]{8,200}$/;

export function createApnsSender(config: AppleWalletConfig, timeoutMs: number): ApnsSender {
  let session: http2.ClientHttp2Session | null = null;
  const connect = (): http2.ClientHttp2Session => {
    if (session !== null && !session.closed && !session.destroyed) return session;
    const s = http2.connect(config.apnsUrl, {
      // The chain, not the certificate alone: WWDR's intermediate lets the peer verify it.
      cert: `${config.cert.trim()}\n${config.wwdr.trim()}\n`,
      key: config.key,
      passphrase: config.keyPassphrase,
      ...(config.apnsCa === undefined ? {} : { ca: config.apnsCa }),
    });
    s.on('error', () => {
      if (session === s) session = null;
    });
    s.on('close', () => {
      if (session === s) session = null;
    });
    // An idle session must not keep the process alive.
    s.unref();
    session = s;
    return s;
  };

  const send = (pushToken: string, signal?: AbortSignal): Promise<ApnsResult> =>
    new Promise((resolve) => {
      if (!TOKEN.test(pushToken)) return resolve({ ok: false, gone: true, detail: 'malformed push token' });
      let req: http2.ClientHttp2Stream;
      try {
        req = connect().request({
          ':method': 'POST',
          ':path': `/3/device/${pushToken}`,
          'apns-topic': config.passTypeId,
          'apns-push-type': 'background',
          'apns-priority': '5',
          'content-type': 'application/json',
        });
      } catch (err) {
        return resolve({ ok: false, gone: false, detail: `connection failed: ${(err as Error).message}` });
      }
      let status = 0;
      let body = '';
      const done = (r: ApnsResult): void => {
        clearTimeout(timer);
        signal?.removeEventListener('abort', onAbort);
        resolve(r);
      };
      const onAbort = (): void => {
        req.close(http2.constants.NGHTTP2_CANCEL);
        done({ ok: false, gone: false, detail: 'cancelled' });
      };
      const timer = setTimeout(() => {
        req.close(http2.constants.NGHTTP2_CANCEL);
        done({ ok: false, gone: false, detail: 'timed out' });
      }, timeoutMs);
      signal?.addEventListener('abort', onAbort, { once: true });
      req.setEncoding('utf8');
      req.on('response', (headers) => {
        status = Number(headers[':status']);
      });
      req.on('data', (chunk: string) => {
        if (body.length < 1024) body += chunk;
      });
      req.on('end', () => done(answer(status, body)));
      req.on('error', (err) => done({ ok: false, gone: false, detail: `error: ${err.message}` }));
      req.end('{}');
    });

  return {
    send,
    close() {
      session?.close();
      session = null;
    },
  };
}

function answer(status: number, body: string): ApnsResult {
  if (status === 200) return { ok: true };
  let reason = '';
  try {
    reason = String((JSON.parse(body) as { reason?: unknown }).reason ?? '');
  } catch {
    // APNs answers JSON; anything else is reported by its status alone.
  }
  const gone = status === 410 || (status === 400 && (reason === 'BadDeviceToken' || reason === 'DeviceTokenNotForTopic'));
  return { ok: false, gone, detail: `APNs ${status}${reason === '' ? '' : ` ${reason}`}` };
}
