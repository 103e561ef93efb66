// The OpenAPI document covers every /v1 route with a typed success answer, and /docs works
// without any other host (PRODUCT.md §9).
import { test, after, before } from 'node:test';
import assert from 'node:assert/strict';
import { startTestApp, type TestApp } from '../helpers/app.ts';
import { registeredRoutes } from '../helpers/routes.ts';

let t: TestApp;
before(async () => {
  t = await startTestApp();
});
after(() => t.close());

type Operation = { responses?: Record<string, { content?: Record<string, { schema?: unknown }> }>; security?: unknown };

const toOpenApiPath = (path: string): string => path.replace(/:([A-Za-z0-9_]+)/g, '{$1}');

test('GET /v1/openapi.json is an OpenAPI 3.1 document, public, with bearer auth declared', async () => {
  const res = await t.request('GET', '/v1/openapi.json', { key: null });
  assert.equal(res.status, 200);
  assert.match(res.headers.get('content-type') ?? '', /^application\/json/);
  assert.match(res.body.openapi, /^3\.1\./);
  assert.equal(typeof res.body.info.title, 'string');
  assert.equal(res.body.components.securitySchemes.apiKey.scheme, 'bearer');
  assert.ok(res.body.components.schemas.Problem, 'the Problem schema is published');
});

test('every /v1 route is in the document with a response schema for its success status', async () => {
  const doc = (await t.request('GET', '/v1/openapi.json', { key: null })).body as { paths: Record<string, Record<string, Operation>> };
  const routes = registeredRoutes(t.app.server.printRoutes({ commonPrefix: false }))
    .filter((r) => r.path.startsWith('/v1/') && r.path !== '/v1/openapi.json' && r.method !== 'HEAD');
  assert.ok(routes.length >= 10, `found only ${routes.length} /v1 routes; is the route tree still parsed right?`);
  assert.ok(routes.some((r) => r.method === 'DELETE' && r.path === '/v1/queues/:name'));

  const missing: string[] = [];
  for (const { method, path } of routes) {
    const label = `${method} ${path}`;
    const op = doc.paths[toOpenApiPath(path)]?.[method.toLowerCase()];
    if (op === undefined) {
      missing.push(`${label}: not in the document (hidden or unregistered schema)`);
      continue;
    }
    const success = Object.entries(op.responses ?? {}).filter(([status]) => /^2\d\d$/.test(status));
    if (success.length === 0) missing.push(`${label}: no 2xx response`);
    for (const [status, response] of success) {
      const schemas = Object.values(response.content ?? {}).map((c) => c.schema);
      if (schemas.length === 0 || schemas.some((s) => s === undefined || (typeof s === 'object' && s !== null && Object.keys(s).length === 0))) {
        missing.push(`${label}: ${status} has no response schema`);
      }
    }
    const problems = Object.keys(op.responses ?? {}).filter((s) => /^4\d\d$/.test(s));
    if (!problems.includes('401')) missing.push(`${label}: 401 problem not documented`);
  }
  assert.deepEqual(missing, [], `routes without a documented answer:\n${missing.join('\n')}`);
});

test('documented success answers describe the real answers', async () => {
  const doc = (await t.request('GET', '/v1/openapi.json', { key: null })).body;
  const branch = await t.request('GET', '/v1/branch');
  // The Branch schema lists exactly the fields the route sends.
  const schema = doc.components.schemas.Branch;
  assert.deepEqual(Object.keys(schema.properties).sort(), Object.keys(branch.body).sort());
  const queues = await t.request('GET', '/v1/queues');
  assert.deepEqual(Object.keys(doc.components.schemas.Queue.properties).sort(), Object.keys(queues.body.data[0]).sort());
});

test('/docs is an HTML API reference whose assets are all served by readybell itself', async () => {
  const res = await fetch(`${t.url}/docs`, { redirect: 'follow' });
  const html = await res.text();
  assert.equal(res.status, 200);
  assert.match(res.headers.get('content-type') ?? '', /^text\/html/);
  assert.match(html, /<title>readybell API reference<\/title>/);
  const base = res.url.endsWith('/') ? res.url : `${res.url}/`;

  const refs = [...html.matchAll(/\b(?:src|href)\s*=\s*["']([^"']+)["']/gi)].map((m) => m[1]!);
  assert.ok(refs.length >= 2, 'the page loads its script and stylesheet');
  for (const ref of refs) {
    const url = new URL(ref, base);
    assert.equal(url.origin, new URL(t.url).origin, `${ref} is loaded from another host`);
    const asset = await fetch(url);
    assert.equal(asset.status, 200, `${ref} is not served`);
    await asset.arrayBuffer();
  }
  for (const m of html.matchAll(/https?:\/\/[^\s"'<>)]+/gi)) {
    assert.equal(new URL(m[0]).origin, new URL(t.url).origin, `the page refers to ${m[0]}`);
  }

  // The document the page renders is readybell's own.
  const json = await fetch(new URL('json', base));
  assert.equal(json.status, 200);
  assert.equal(((await json.json()) as { info: { title: string } }).info.title, (await t.request('GET', '/v1/openapi.json', { key: null })).body.info.title);
});
