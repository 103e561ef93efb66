// The OpenTelemetry SDK, configured by the standard OTEL_* variables (exporter, endpoint,
// protocol, headers, sampler, batching, resource, propagators: @opentelemetry/sdk-node reads
// them), with the instrumentations readybell needs: Fastify (one span per request, the W3C
// traceparent of the caller honoured), pg and ioredis. Traces only: the metrics are Prometheus'.
//
// Loaded with require, synchronously: preload.ts must have the instrumentations hooked before the
// CLI's own imports load pg and ioredis, and a top-level await there would let them load first.
// A lean release (scripts/release.sh --lean, decision 0070) leaves these packages out, which
// missingSdkPackages finds out before anything is loaded or hooked.
import { createRequire } from 'node:module';
import type { FastifyRequest } from 'fastify';

const require = createRequire(import.meta.url);

/** The API the SDK registered itself with, for the helpers of tracing.ts. */
export type Sdk = { api: typeof import('@opentelemetry/api'); shutdown(): Promise<void> };

/** Health checks, scrapes and hours-long live streams would only bury the requests worth a trace. */
const UNTRACED = /^\/(healthz|readyz|metrics|v1\/stream)(\?|$)|^\/(t|board)\/[^/]+\/events(\?|$)/;

/** What startSdk requires; a lean release lacks all but @opentelemetry/api (prom-client's too). */
export const SDK_MODULES = [
  'import-in-the-middle/register-hooks.mjs',
  '@opentelemetry/sdk-node',
  '@fastify/otel',
  '@opentelemetry/instrumentation-pg',
  '@opentelemetry/instrumentation-ioredis',
  '@opentelemetry/api',
] as const;

/**
 * The modules startSdk needs that this install cannot find: none unless it is a lean release. Resolved, not loaded: nothing is evaluated or hooked by asking.
 */
/**
 * The packages a lean release leaves out (scripts/release.sh --lean reads this list): the SDK's,
 * less @opentelemetry/api, which prom-client needs anyway.
 */
export const TRACING_PACKAGES: readonly string[] = SDK_MODULES.map(packageOf).filter((name) => name !== '@opentelemetry/api');

function packageOf(specifier: string): string {
  return specifier
    .split('/')
    .slice(0, specifier.startsWith('@') ? 2 : 1)
    .join('/');
}

export function missingSdkPackages(): string[] {
  return SDK_MODULES.filter((specifier) => {
    try {
      require.resolve(specifier);
      return false;
    } catch {
      return true;
    }
  }).map(packageOf);
}

/** Starts the SDK; missingSdkPackages() must have found nothing missing. */
export function startSdk(): Sdk {
  // pg is hooked through require, which its CommonJS files use; ioredis is imported as a whole by
  // our ES modules, which only a loader hook sees: import-in-the-middle's, in-thread, for it alone.
  const { register } = require('import-in-the-middle/register-hooks.mjs') as typeof import('import-in-the-middle/register-hooks.mjs');
  register({ include: ['ioredis'] });
  const { NodeSDK } = require('@opentelemetry/sdk-node') as typeof import('@opentelemetry/sdk-node');
  const { FastifyOtelInstrumentation } = require('@fastify/otel') as typeof import('@fastify/otel');
  const { PgInstrumentation } = require('@opentelemetry/instrumentation-pg') as typeof import('@opentelemetry/instrumentation-pg');
  const { IORedisInstrumentation } =
    require('@opentelemetry/instrumentation-ioredis') as typeof import('@opentelemetry/instrumentation-ioredis');
  const env = process.env;
  const named = env.OTEL_SERVICE_NAME !== undefined || /(^|,)\s*service\.name=/.test(env.OTEL_RESOURCE_ATTRIBUTES ?? '');
  const sdk = new NodeSDK({
    serviceName: named ? undefined : 'readybell',
    instrumentations: [
      new FastifyOtelInstrumentation({
        // Every Fastify instance, as it is created: no plugin to register in the server's code.
        registerOnInitialization: true,
        // One span per request; the work inside it has spans of its own (store, Redis, ring).
        instrumentHooks: false,
        instrumentHandler: false,
        ignorePaths: ({ url }) => UNTRACED.test(url),
        // The route pattern, never the path itself: customer and board links carry their secret.
        // Named `{method} {route}` (the HTTP semantic conventions), or the method alone without a
        // route, rather than the plugin's "request", so a trace list says which operation each is.
        requestHook: (span, request: FastifyRequest) => {
          const route = request.routeOptions.url;
          span.setAttribute('url.path', route ?? '(no route)');
          span.updateName(route === undefined ? request.method : `${request.method} ${route}`);
        },
      }),
      // Queries inside a trace only: the job runner's polls would otherwise each start one.
      new PgInstrumentation({ requireParentSpan: true }),
      // The command name only: keys and arguments hold rate-limit buckets of customer links.
      new IORedisInstrumentation({ dbStatementSerializer: (command) => command }),
    ],
    metricReaders: [],
    logRecordProcessors: [],
  });
  sdk.start();
  return { api: require('@opentelemetry/api') as typeof import('@opentelemetry/api'), shutdown: () => sdk.shutdown() };
}
