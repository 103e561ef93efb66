// autocannon ships no types and @types/autocannon is not a dependency; this covers only what
// the bench uses, so a wrong option name still fails the type-check.
declare module 'autocannon' {
  import type { EventEmitter } from 'node:events';

  export type RequestContext = Record<string, unknown>;

  export type Request = {
    method?: string;
    path?: string;
    headers?: Record<string, string>;
    body?: string | Buffer;
    setupRequest?: (req: Request, context: RequestContext) => Request | null | undefined;
    onResponse?: (status: number, body: string, context: RequestContext, headers: Record<string, string | string[]>) => void;
  };

  export type Options = {
    url: string | string[];
    connections?: number;
    duration?: number;
    amount?: number;
    maxOverallRequests?: number;
    pipelining?: number;
    timeout?: number;
    method?: string;
    headers?: Record<string, string>;
    body?: string | Buffer;
    requests?: Request[];
  };

  export type Histogram = {
    average: number;
    mean: number;
    stddev: number;
    min: number;
    max: number;
    total: number;
    p50: number;
    p90: number;
    p97_5: number;
    p99: number;
  };

  export type Result = {
    requests: Histogram & { sent: number };
    latency: Histogram & { totalCount: number };
    errors: number;
    timeouts: number;
    non2xx: number;
    '2xx': number;
    statusCodeStats: Record<string, { count: number }>;
    duration: number;
  };

  export type Instance = EventEmitter & { stop(): void };

  function autocannon(opts: Options, cb: (err: Error | null, result: Result) => void): Instance;
  export default autocannon;
}
