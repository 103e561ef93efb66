// One autocannon run, reduced to the numbers the table shows. autocannon runs in this process,
// so on a small machine it takes CPU from the server it measures: results are lower bounds.
import autocannon, { type Request, type Result } from 'autocannon';

export type LoadOptions = {
  /** Several URLs: autocannon deals the connections out over them in turn (one per node). */
  url: string | string[];
  connections: number;
  /** seconds */
  duration: number;
  method?: string;
  headers?: Record<string, string>;
  body?: string;
  /** Per-request setup (e.g. a fresh ticket id each time); built per request, so it costs load-generator CPU. */
  setupRequest?: Request['setupRequest'];
  onResponse?: Request['onResponse'];
  /** Stop early after this many requests (whichever comes first with `duration`). */
  maxRequests?: number;
  /** Exactly this many requests, no time limit. */
  amount?: number;
};

export type Measurement = {
  rps: number;
  p50: number;
  p99: number;
  /** non-2xx answers plus connection errors and timeouts */
  errors: number;
  /** connection errors and timeouts: failures with no status code */
  socketErrors: number;
  completed: number;
  durationS: number;
  statusCounts: Record<string, number>;
};

export function measure(opts: LoadOptions): Promise<Measurement> {
  const request: Request = {
    method: opts.method ?? 'GET',
    ...(opts.headers ? { headers: opts.headers } : {}),
    ...(opts.body !== undefined ? { body: opts.body } : {}),
    ...(opts.setupRequest ? { setupRequest: opts.setupRequest } : {}),
    ...(opts.onResponse ? { onResponse: opts.onResponse } : {}),
  };
  // autocannon splits the cap across connections, and a connection whose share is 0 is unlimited.
  if (opts.maxRequests !== undefined && opts.maxRequests < opts.connections) {
    return Promise.reject(new Error(`maxRequests (${opts.maxRequests}) must be at least the connection count (${opts.connections})`));
  }
  return new Promise((resolve, reject) => {
    autocannon(
      {
        url: opts.url,
        connections: opts.connections,
        duration: opts.duration,
        // A stuck request should show up as an error in the table, not hang the bench.
        timeout: 30,
        requests: [request],
        ...(opts.amount !== undefined ? { amount: opts.amount } : {}),
        ...(opts.maxRequests !== undefined ? { maxOverallRequests: opts.maxRequests } : {}),
      },
      (err, result) => (err ? reject(err) : resolve(reduce(result))),
    );
  });
}

function reduce(r: Result): Measurement {
  const statusCounts: Record<string, number> = {};
  for (const [code, { count }] of Object.entries(r.statusCodeStats)) statusCounts[code] = count;
  return {
    rps: r.requests.average,
    p50: r.latency.p50,
    p99: r.latency.p99,
    errors: r.non2xx + r.errors,
    socketErrors: r.errors,
    completed: r.requests.total,
    durationS: r.duration,
    statusCounts,
  };
}

/** "409×12, 500×3" — what the errors were, for the report. */
export function describeErrors(m: Measurement): string {
  const parts = Object.entries(m.statusCounts)
    .filter(([code]) => !code.startsWith('2'))
    .map(([code, n]) => `${code}×${n}`);
  if (m.socketErrors > 0) parts.push(`${m.socketErrors} connection errors/timeouts`);
  return parts.join(', ');
}
