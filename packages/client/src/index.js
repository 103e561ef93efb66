// A thin client for readybell's API: paths typed by schema.d.ts (generated from /v1/openapi.json),
// a fresh Idempotency-Key on every write, bounded retries with that same key, and problem
// documents raised as ReadybellError, an unreachable server as ReadybellConnectionError. Plain JavaScript with index.d.ts beside it, so it runs
// unbuilt on Node ≥ 18 and in browsers (Node does not strip types under node_modules).

const WRITES = new Set(['POST', 'PATCH', 'PUT', 'DELETE']);

/** A problem document (RFC 9457) answered by readybell: branch on `code`, show `detail`. */
export class ReadybellError extends Error {
  constructor(status, problem, headers) {
    super(`${status} ${problem.code ?? 'error'}: ${problem.detail ?? problem.title ?? 'request failed'}`);
    this.name = 'ReadybellError';
    this.status = status;
    this.code = problem.code;
    this.type = problem.type;
    this.title = problem.title;
    this.detail = problem.detail;
    this.requestId = problem.request_id ?? headers?.get('request-id') ?? undefined;
    this.problem = problem;
  }
}

/**
 * readybell could not be reached at `url`: no answer at all (the server is down or unreachable,
 * the name does not resolve, the connection was refused or reset) or none within the timeout,
 * after every attempt. `cause` is the last attempt's own error.
 */
export class ReadybellConnectionError extends Error {
  constructor(url, attempts, cause) {
    const why = cause?.name === 'TimeoutError' ? 'no answer within the timeout' : describeCause(cause);
    super(`could not reach readybell at ${url}: ${why} (${attempts} ${attempts === 1 ? 'attempt' : 'attempts'})`, { cause });
    this.name = 'ReadybellConnectionError';
    this.url = url;
    this.attempts = attempts;
  }
}

/** fetch's own message ("fetch failed") says little: the network error is its cause. */
function describeCause(err) {
  const inner = err?.cause ?? err;
  const code = inner?.code;
  const message = inner?.message ?? String(err);
  return code !== undefined && !message.includes(code) ? `${code} ${message}` : message;
}

/** Whether an answer may be retried with the same Idempotency-Key (the API's own advice). */
function retryable(status, code) {
  return status === 429 || status >= 500 || (status === 409 && code === 'idempotency-key-in-use');
}

/** Retry-After in milliseconds (seconds or an HTTP date), or null when absent or unreadable. */
function retryAfterMs(value, now) {
  if (value === null || value === undefined) return null;
  if (/^\d+$/.test(value.trim())) return Number(value.trim()) * 1000;
  const at = Date.parse(value);
  return Number.isNaN(at) ? null : Math.max(0, at - now);
}

const defaultSleep = (ms) => new Promise((resolve) => setTimeout(resolve, ms));

export function createClient(options) {
  const base = options.baseUrl.replace(/\/+$/, '');
  const doFetch = options.fetch ?? globalThis.fetch.bind(globalThis);
  const sleep = options.sleep ?? defaultSleep;
  const maxAttempts = Math.max(1, options.maxAttempts ?? 4);
  const timeoutMs = options.timeoutMs ?? 10_000;
  const maxDelayMs = options.maxDelayMs ?? 30_000;

  function url(path, params) {
    const filled = path.replace(/\{(\w+)\}/g, (_, name) => {
      const value = params?.path?.[name];
      if (value === undefined) throw new TypeError(`missing path parameter ${name} for ${path}`);
      return encodeURIComponent(String(value));
    });
    const query = new URLSearchParams();
    for (const [name, value] of Object.entries(params?.query ?? {})) {
      if (value === undefined || value === null) continue;
      for (const one of Array.isArray(value) ? value : [value]) query.append(name, String(one));
    }
    const search = query.toString();
    return base + filled + (search === '' ? '' : `?${search}`);
  }

  async function request(method, path, init = {}) {
    const headers = { accept: 'application/json', ...init.params?.header, ...init.headers };
    if (options.apiKey !== undefined) headers.authorization = `Bearer ${options.apiKey}`;
    // One key for every attempt of this call: a retry after a lost answer then does nothing twice.
    if (WRITES.has(method) && !Object.keys(headers).some((h) => h.toLowerCase() === 'idempotency-key')) {
      headers['Idempotency-Key'] = globalThis.crypto.randomUUID();
    }
    let body;
    if (init.body !== undefined) {
      body = JSON.stringify(init.body);
      headers['content-type'] = 'application/json';
    }
    const target = url(path, init.params);
    for (let attempt = 1; ; attempt++) {
      const last = attempt >= maxAttempts;
      const backoff = Math.min(maxDelayMs, 500 * 2 ** (attempt - 1));
      let res;
      try {
        const signals = [AbortSignal.timeout(timeoutMs), init.signal].filter(Boolean);
        res = await doFetch(target, { method, headers, body, signal: signals.length > 1 ? AbortSignal.any(signals) : signals[0] });
      } catch (err) {
        // The caller's own abort is final; a timeout or a network failure is retried.
        if (init.signal?.aborted) throw err;
        if (last) throw new ReadybellConnectionError(target, attempt, err);
        await sleep(backoff);
        continue;
      }
      const text = await res.text();
      const parsed = text === '' ? undefined : safeJson(text);
      if (res.ok) return { data: parsed, response: res };
      const problem = parsed !== null && typeof parsed === 'object' ? parsed : { title: res.statusText, status: res.status };
      if (last || !retryable(res.status, problem.code)) throw new ReadybellError(res.status, problem, res.headers);
      const wait = retryAfterMs(res.headers.get('retry-after'), Date.now());
      await sleep(Math.min(maxDelayMs, wait ?? backoff));
    }
  }

  const verb = (method) => (path, init) => request(method, path, init);
  return { GET: verb('GET'), POST: verb('POST'), PATCH: verb('PATCH'), PUT: verb('PUT'), DELETE: verb('DELETE'), request };
}

function safeJson(text) {
  try {
    return JSON.parse(text);
  } catch {
    return undefined;
  }
}
