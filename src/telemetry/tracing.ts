// Tracing as the rest of the code sees it: spans around the work an operator follows (a ring and
// its channels, a background job, a webhook delivery, a store write) and the W3C trace context
// carried into jobs and onto webhook requests. The OpenTelemetry API and SDK (sdk.ts) are loaded
// by startTracing, only when OTEL_* asks for traces (config.ts, tracingWanted); until then nothing
// of OpenTelemetry is loaded and every helper returns at its first line: off costs nothing.
// A lean install has no OpenTelemetry packages (decision 0070): asked for traces, it runs without
// them, and `serve` and `worker` say so once (tracingUnavailable).
import type { Attributes, Context, Span } from '@opentelemetry/api';
import { missingSdkPackages, startSdk, type Sdk } from './sdk.ts';

let sdk: Sdk | null = null;
let missing: string[] = [];

/** Starts the SDK (once). Before pg, ioredis and Fastify are loaded, or they are not instrumented (preload.ts). */
export function startTracing(): void {
  if (sdk !== null) return;
  missing = missingSdkPackages();
  if (missing.length === 0) sdk = startSdk();
}

/** Whether spans are being recorded: tracing was asked for and this install could start it. */
export function tracingOn(): boolean {
  return sdk !== null;
}

/**
 * When OTEL_* asked for traces and this install has no tracing packages (a lean release): the
 * packages missing and a warning for the operator; else null.
 */
export function tracingUnavailable(): { missing: string[]; message: string } | null {
  if (missing.length === 0) return null;
  return {
    missing,
    message:
      'OTEL_* asks for traces, but this install has no OpenTelemetry packages (a lean release, scripts/release.sh --lean): ' +
      'running without tracing. Build the release without --lean to trace, or unset OTEL_* to silence this.',
  };
}

/** Sends the spans still buffered and stops tracing (graceful shutdown). */
export async function stopTracing(): Promise<void> {
  const running = sdk;
  sdk = null;
  await running?.shutdown().catch(() => {});
}

export type SpanOptions<T> = {
  kind?: 'internal' | 'client';
  /** The parent when it is not the active context (a job continues the trace that enqueued it). */
  parent?: () => Context | undefined;
  /** Attributes that describe the result, set before the span ends. */
  outcome?: (result: T) => Attributes;
  /** Only as part of a trace: background work (the job runner's polls) starts none. */
  inTraceOnly?: boolean;
};

/**
 * Runs `fn` in a span named `name`, the active one meanwhile; without tracing just runs `fn`.
 * `attributes` may be a function when they cost something to work out.
 */
export function inSpan<T>(
  name: string,
  attributes: Attributes | (() => Attributes),
  fn: () => Promise<T>,
  opts: SpanOptions<T> = {},
): Promise<T> {
  if (sdk === null) return fn();
  const { context, trace, SpanKind, SpanStatusCode } = sdk.api;
  if (opts.inTraceOnly === true && trace.getActiveSpan() === undefined) return fn();
  const kind = opts.kind === 'client' ? SpanKind.CLIENT : SpanKind.INTERNAL;
  const start = { kind, attributes: typeof attributes === 'function' ? attributes() : attributes };
  return trace.getTracer('readybell').startActiveSpan(name, start, opts.parent?.() ?? context.active(), async (span: Span) => {
    try {
      const result = await fn();
      if (opts.outcome !== undefined) span.setAttributes(opts.outcome(result));
      return result;
    } catch (err) {
      span.recordException(err as Error);
      span.setStatus({ code: SpanStatusCode.ERROR, message: (err as Error).message });
      throw err;
    } finally {
      span.end();
    }
  });
}

export type TraceIds = { trace_id?: string; span_id?: string };

/**
 * The active span's ids, for the log lines written inside it (log.ts), so that an operator goes
 * from a trace to its logs and back; nothing without tracing or outside a trace.
 */
export function activeTraceIds(): TraceIds {
  // A new object each time: pino merges the line's own fields into it.
  if (sdk === null) return {};
  const span = sdk.api.trace.getActiveSpan()?.spanContext();
  return span === undefined || !sdk.api.isSpanContextValid(span) ? {} : { trace_id: span.traceId, span_id: span.spanId };
}

/** Marks the active span failed without an exception (a webhook receiver answering 500). */
export function markSpanFailed(message: string): void {
  if (sdk === null) return;
  sdk.api.trace.getActiveSpan()?.setStatus({ code: sdk.api.SpanStatusCode.ERROR, message });
}

// Only the W3C trace context crosses our boundaries: baggage a client sent is never stored in a
// job nor forwarded to a webhook receiver.
const W3C_FIELDS = ['traceparent', 'tracestate'] as const;

function currentTraceContext(api: Sdk['api']): Record<string, string> {
  const carrier: Record<string, string> = {};
  api.propagation.inject(api.context.active(), carrier);
  const out: Record<string, string> = {};
  for (const f of W3C_FIELDS) if (carrier[f] !== undefined) out[f] = carrier[f];
  return out;
}

/** `traceparent` (and `tracestate`) of the active span, for an outgoing request. */
export function traceHeaders(): Record<string, string> {
  return sdk === null ? {} : currentTraceContext(sdk.api);
}

/**
 * A job's payload with the trace context of the work that enqueues it, so that the job's span
 * continues that trace on whichever node runs it, whenever (jobParent).
 */
export function withTraceContext<P>(payload: P): P {
  if (sdk === null || typeof payload !== 'object' || payload === null) return payload;
  const carried = currentTraceContext(sdk.api);
  return carried.traceparent === undefined ? payload : { ...payload, trace: carried };
}

/** The context a job's span continues: the one its payload carries, or a new trace. */
export function jobParent(payloadJson: string): Context | undefined {
  if (sdk === null) return undefined;
  const { propagation, ROOT_CONTEXT } = sdk.api;
  let carried: unknown;
  try {
    carried = (JSON.parse(payloadJson) as { trace?: unknown }).trace;
  } catch {
    return ROOT_CONTEXT;
  }
  return typeof carried === 'object' && carried !== null ? propagation.extract(ROOT_CONTEXT, carried) : ROOT_CONTEXT;
}

/**
 * `fn`, bound to the trace context active now: the embedded store runs the writes of many
 * requests in one batch, each in its caller's trace.
 */
export function inCallerContext<A extends unknown[], R>(fn: (...args: A) => R): (...args: A) => R {
  return sdk === null ? fn : sdk.api.context.bind(sdk.api.context.active(), fn);
}

/** `fn`, bound to no trace: shared work (a batch's commit) is nobody's child. */
export function outsideTraces<A extends unknown[], R>(fn: (...args: A) => R): (...args: A) => R {
  return sdk === null ? fn : sdk.api.context.bind(sdk.api.ROOT_CONTEXT, fn);
}
