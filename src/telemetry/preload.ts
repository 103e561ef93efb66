// The CLI's first import. When OTEL_* asks for traces, the SDK starts here, before any module
// that pg, ioredis or Fastify come with is evaluated (imports are evaluated in order, and this
// one's own imports load none of them), so their instrumentations can hook them. Without OTEL_*,
// nothing but @opentelemetry/api is loaded.
import { tracingWanted } from '../config.ts';
import { startTracing } from './tracing.ts';

if (tracingWanted(process.env)) startTracing();
