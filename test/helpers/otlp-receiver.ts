// An OTLP/HTTP trace receiver on 127.0.0.1, as a collector would run one: it takes what the SDK
// exports with OTEL_EXPORTER_OTLP_PROTOCOL=http/json and keeps the spans, flattened, for a test.
import http from 'node:http';
import type { AddressInfo } from 'node:net';

export type ReceivedSpan = {
  traceId: string;
  spanId: string;
  parentSpanId: string;
  name: string;
  /** OTLP's SpanKind: 1 internal, 2 server, 3 client */
  kind: number;
  attributes: Record<string, string | number | boolean>;
  service: string;
};

type AnyValue = { stringValue?: string; intValue?: string | number; boolValue?: boolean; doubleValue?: number };
type KeyValue = { key: string; value: AnyValue };
type Export = {
  resourceSpans?: Array<{
    resource?: { attributes?: KeyValue[] };
    scopeSpans?: Array<{
      spans?: Array<{ traceId: string; spanId: string; parentSpanId?: string; name: string; kind: number; attributes?: KeyValue[] }>;
    }>;
  }>;
};

const value = (v: AnyValue): string | number | boolean =>
  v.stringValue ?? v.boolValue ?? (v.intValue !== undefined ? Number(v.intValue) : (v.doubleValue ?? ''));
const attributes = (kvs: KeyValue[] = []): Record<string, string | number | boolean> =>
  Object.fromEntries(kvs.map((kv) => [kv.key, value(kv.value)]));

export class OtlpReceiver {
  readonly spans: ReceivedSpan[] = [];
  /** Export requests that were not OTLP/JSON traces (a wrong protocol, a wrong path). */
  readonly refused: string[] = [];
  private readonly server = http.createServer((req, res) => {
    const chunks: Buffer[] = [];
    req.on('data', (c: Buffer) => chunks.push(c));
    req.on('end', () => {
      if (req.method !== 'POST' || req.url !== '/v1/traces' || !String(req.headers['content-type']).startsWith('application/json')) {
        this.refused.push(`${req.method} ${req.url} ${req.headers['content-type']}`);
        res.writeHead(404).end();
        return;
      }
      const body = JSON.parse(Buffer.concat(chunks).toString('utf8')) as Export;
      for (const rs of body.resourceSpans ?? []) {
        const service = String(attributes(rs.resource?.attributes)['service.name'] ?? '');
        for (const ss of rs.scopeSpans ?? []) {
          for (const s of ss.spans ?? []) {
            this.spans.push({
              traceId: s.traceId,
              spanId: s.spanId,
              parentSpanId: s.parentSpanId ?? '',
              name: s.name,
              kind: s.kind,
              attributes: attributes(s.attributes),
              service,
            });
          }
        }
      }
      res.writeHead(200, { 'content-type': 'application/json' }).end('{}');
    });
  });

  url = '';

  async start(): Promise<this> {
    await new Promise<void>((resolve) => this.server.listen(0, '127.0.0.1', resolve));
    this.url = `http://127.0.0.1:${(this.server.address() as AddressInfo).port}`;
    return this;
  }

  trace(traceId: string): ReceivedSpan[] {
    return this.spans.filter((s) => s.traceId === traceId);
  }

  async close(): Promise<void> {
    this.server.closeAllConnections();
    await new Promise<void>((resolve) => this.server.close(() => resolve()));
  }
}
