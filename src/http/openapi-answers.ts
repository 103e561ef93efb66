// What every operation shares, added to the document in one place: the problem answers (from the
// problem catalogue, so a new code is documented everywhere it can occur; each distinct one stated
// once in components/responses and referred to, which halves the document and the generated
// clients), the headers the /v1 scope sets on every answer (Request-Id, RateLimit), idempotency
// on every write, and the CSRF token a staff session sends on writes. Routes declare only what is
// their own (operation.ts).
import { STATUS_CODES } from 'node:http';
import type { ErrorCode } from '../domain/errors.ts';
import { PROBLEM_CATALOGUE, PROBLEM_CODES, PROBLEM_CONTENT_TYPE } from '../contract/problem-catalogue.ts';
import { OWN_PROBLEMS, SECURITY, type Access } from './operation.ts';
import { EXAMPLE_IDS, EXAMPLE_REQUEST_ID } from '../contract/schema-parts.ts';
import { shareFieldSchemas, shareRequestBodies, shareSuccessAnswers } from './openapi-sharing.ts';

import type { Json } from './openapi-sharing.ts';
export type { Json };

const WRITES = new Set(['post', 'patch', 'delete']);

/**
 * `internal` (500) and `unavailable` (503) are one answer, under the range key `5XX`: every
 * operation can give both, and a client does the same with either (retry with the same
 * Idempotency-Key). One `$ref` instead of two on each of 86 operations saves 4 KB of the
 * document's 250 KB budget (docs/decisions/0096-openapi-size.md); each code's example keeps its
 * own status.
 */
const SERVER_ERRORS = '5XX';

const header = (description: string, schema: Json) => ({ description, schema });

export const HEADERS = {
  'Request-Id': header(
    "This request's id; quote it to support. Problems carry it as `request_id`. It is the `X-Request-Id` you sent when that was 1 to 128 printable ASCII characters without spaces (echoed as `X-Request-Id` too), else a fresh one.",
    {
      type: 'string',
      examples: [EXAMPLE_REQUEST_ID],
    },
  ),
  RateLimit: header(
    'The bucket this request counted against (draft-ietf-httpapi-ratelimit-headers-10): `r` whole requests left, `t` seconds until the next token (absent when full).',
    { type: 'string', examples: ['"writes";r=87;t=1'] },
  ),
  'RateLimit-Policy': header('Both buckets of the API key: writes (POST, PATCH, DELETE) and reads (GET).', {
    type: 'string',
    examples: ['"writes";q=120;w=120, "reads";q=600;w=60'],
  }),
  'Retry-After': header('Whole seconds to wait before retrying, with the same Idempotency-Key.', { type: 'integer', examples: [3] }),
  'Idempotent-Replayed': header(
    '`true` when this is the stored answer of an earlier request with the same Idempotency-Key, replayed byte for byte: nothing was done again.',
    { type: 'string', enum: ['true'] },
  ),
  'WWW-Authenticate': header('Sent with every 401: `Bearer realm="readybell"`, with `error="invalid_token"` for `invalid-api-key`.', {
    type: 'string',
    examples: ['Bearer realm="readybell"'],
  }),
};

export const PARAMETERS = {
  IdempotencyKey: {
    name: 'Idempotency-Key',
    in: 'header',
    required: false,
    description:
      'Makes a retry safe: a repeat with the same key, method, path and body within 24 hours gets the first answer again ' +
      '(`Idempotent-Replayed: true`) and does nothing a second time. 1–255 printable ASCII characters, bare or as a quoted string. ' +
      'Use one per operation, such as `order-1001-ready`, and the same one when you retry it.',
    schema: { type: 'string', minLength: 1, maxLength: 257, examples: ['order-1001-ready'] },
  },
};

/** A realistic `detail` for each code's example. */
const EXAMPLE_DETAILS: Record<ErrorCode, string> = {
  'invalid-json': "The request body is not valid JSON: Unexpected token 'A' at line 1, column 11 (character 11).",
  'unsupported-media-type': 'Content-Type text/plain is not supported; send application/json.',
  'validation-failed':
    'The request body is invalid: /customer_phone must be a phone number in international (E.164) form: +, the country code and the number, digits only, such as +33612345678.',
  'bad-request': 'The quoted Idempotency-Key has no closing quote.',
  unauthenticated: 'Send your API key as `Authorization: Bearer rk_test_…` (or rk_live_…).',
  'invalid-api-key': 'This API key is unknown or has been revoked.',
  'plan-required': 'The free plan does not include the API; the pro and business plans do.',
  forbidden: 'This operation needs the owner role.',
  'not-found': 'No such ticket.',
  'method-not-allowed': 'PUT is not supported on /v1/branch; allowed: GET, PATCH.',
  'payload-too-large': 'The request body is too large.',
  'request-timeout': 'The request did not arrive in full within 15000 ms.',
  'expectation-failed': 'Expect "200-ok" cannot be met: readybell meets only 100-continue.',
  'ticket-state-conflict': 'Cannot mark ready a ticket that is collected.',
  'last-owner': "This is the account's last owner; make another user owner first.",
  conflict: 'Queue "A" has open tickets in test or live mode; collect, cancel or let them expire first.',
  'idempotency-key-in-use': 'A request with this Idempotency-Key is still being processed; retry in 1 s.',
  'idempotency-key-reuse': 'This Idempotency-Key was used with another request in the last 24 hours.',
  'rate-limited': 'Too many writes for this API key; retry in 3 s.',
  internal: 'An unexpected error occurred. It has been logged with this request id.',
  'not-implemented': 'CONNECT is not supported: readybell is not a proxy.',
  unavailable: 'This node is shutting down; retry the request.',
};

const EXAMPLE_EXTRAS: Partial<Record<ErrorCode, Json>> = {
  'validation-failed': {
    errors: [
      {
        pointer: '/customer_phone',
        detail:
          'must be a phone number in international (E.164) form: +, the country code and the number, digits only, such as +33612345678',
      },
    ],
  },
  'bad-request': { errors: [{ pointer: '/headers/idempotency-key', detail: 'The quoted Idempotency-Key has no closing quote.' }] },
  'ticket-state-conflict': { ticket_status: 'collected' },
  'idempotency-key-in-use': { retry_after: 1 },
  'rate-limited': { retry_after: 3, violated_policies: ['writes'] },
  unavailable: { retry_after: 1 },
};

/** The problems any operation of this kind can answer with. */
function standardProblems(op: Json, write: boolean, access: Access): ErrorCode[] {
  const params = (op.parameters ?? []) as Json[];
  const codes: ErrorCode[] = ['bad-request', 'rate-limited', 'internal', 'unavailable'];
  if (access !== 'public') codes.push('unauthenticated', 'invalid-api-key', 'forbidden');
  if (access === 'api') codes.push('plan-required');
  if (params.some((p) => p.in === 'path')) codes.push('not-found');
  if (params.some((p) => p.in === 'path' || p.in === 'query') || op.requestBody !== undefined) codes.push('validation-failed');
  if (op.requestBody !== undefined) codes.push('invalid-json', 'unsupported-media-type', 'payload-too-large', 'request-timeout');
  if (write && access !== 'public') codes.push('idempotency-key-in-use', 'idempotency-key-reuse');
  return codes;
}

const pascal = (words: string) => words.replace(/(?:^|[-\s])([a-z])/gi, (_, c: string) => c.toUpperCase());

/**
 * The word a code adds to the name of a shared answer that carries it; '' for the code its status
 * mostly stands for (`bad-request` is a 400's), so the common answers have the shortest names.
 */
const CODE_WORDS: Record<ErrorCode, string> = {
  'bad-request': '',
  'invalid-json': 'Json',
  'unsupported-media-type': '',
  'validation-failed': 'Invalid',
  unauthenticated: '',
  'invalid-api-key': 'Key',
  'plan-required': 'Plan',
  forbidden: '',
  'not-found': '',
  'method-not-allowed': '',
  'payload-too-large': '',
  'request-timeout': '',
  'expectation-failed': '',
  'ticket-state-conflict': 'State',
  'last-owner': 'LastOwner',
  conflict: 'Conflict',
  'idempotency-key-in-use': 'InUse',
  'idempotency-key-reuse': 'Reuse',
  'rate-limited': '',
  internal: '',
  'not-implemented': '',
  unavailable: '',
};

/**
 * The problem answers operations share (components/responses): one per status, set of codes and
 * headers, named after its status and its codes' words (`E404`, `E403Plan`: `forbidden` or
 * `plan-required`; `E409InUseState`), then what sets its headers apart (`Write`: stored and
 * replayed; `Public`: outside the rate limits). The names are short because some 700 `$ref`s
 * spell them (docs/decisions/0096-openapi-size.md); the description and examples list the codes.
 * An operation refers to them, and says in the reference's description what a code means for it
 * when that is more than the catalogue says; its codes are the shared answer's, so a client reads
 * each operation's problem codes from what it refers to.
 */
class SharedProblems {
  readonly responses: Record<string, Json> = {};

  ref(status: string, codes: Array<[ErrorCode, string]>, headers: { headers: Json; variant: string }): Json {
    const name = `E${status}${codes.map(([code]) => CODE_WORDS[code]).join('')}${headers.variant}`;
    // What each code means is said once, in its example (components/examples), not in every answer that can carry it.
    const list = codes.map(([code]) => `\`${code}\``).join(' or ');
    const server = codes.map(([code]) => `\`${code}\` (${PROBLEM_CATALOGUE[code].status} ${STATUS_CODES[PROBLEM_CATALOGUE[code].status]})`);
    const answer = {
      description:
        status === SERVER_ERRORS
          ? `Server error: a problem whose \`code\` is ${server.join(' or ')}`
          : `${STATUS_CODES[status]}: a problem whose \`code\` is ${list}`,
      headers: headers.headers,
      content: {
        [PROBLEM_CONTENT_TYPE]: {
          schema: { $ref: '#/components/schemas/Problem' },
          examples: Object.fromEntries(codes.map(([code]) => [code, ref('examples', code)])),
        },
      },
    };
    const known = this.responses[name];
    // The name says everything the answer is made of; two answers under one name would be a bug here.
    if (known !== undefined && JSON.stringify(known) !== JSON.stringify(answer)) throw new Error(`two problem answers named ${name}`);
    this.responses[name] = answer;
    return { $ref: `#/components/responses/${name}` };
  }
}

/** One example problem per code, referred to by every answer that can carry it. */
function problemExamples(codes: Iterable<ErrorCode>): Json {
  return Object.fromEntries(
    [...codes].map((code) => {
      const { title, status } = PROBLEM_CATALOGUE[code];
      return [
        code,
        {
          // No `summary`: it would be the value's `title` again; a renderer names the example by its code.
          description: PROBLEM_CATALOGUE[code].help,
          value: {
            type: `/problems/${code}`,
            title,
            status,
            detail: EXAMPLE_DETAILS[code],
            instance: `/v1/tickets/${EXAMPLE_IDS.ticket}/ready`,
            code,
            request_id: EXAMPLE_REQUEST_ID,
            ...EXAMPLE_EXTRAS[code],
          },
        },
      ];
    }),
  );
}

const ref = (kind: 'headers' | 'parameters' | 'examples', name: string) => ({ $ref: `#/components/${kind}/${name}` });

/**
 * The headers of an answer with this status, and what sets them apart from the ordinary ones:
 * `Public` for an operation outside the rate limits, `Write` for a write's stored answer.
 */
function answerHeaders(status: number, access: Access, write: boolean): { headers: Json; variant: string } {
  const headers: Json = { 'Request-Id': ref('headers', 'Request-Id') };
  let variant = '';
  if (status !== 401 && status !== 408) {
    if (access === 'public') variant += 'Public';
    else Object.assign(headers, { RateLimit: ref('headers', 'RateLimit'), 'RateLimit-Policy': ref('headers', 'RateLimit-Policy') });
  }
  if (status === 409 || status === 429 || status === 503) headers['Retry-After'] = ref('headers', 'Retry-After');
  if (status === 401) headers['WWW-Authenticate'] = ref('headers', 'WWW-Authenticate');
  // A write's answer is stored and replayed, except those checked before it runs and those that say "come back later".
  if (write && access !== 'public' && status < 500 && ![400, 401, 408, 413, 415, 429].includes(status)) {
    headers['Idempotent-Replayed'] = ref('headers', 'Idempotent-Replayed');
    variant += 'Write';
  }
  return { headers, variant };
}

/** Completes one operation; returns the problem codes it can answer with. */
function finishOperation(method: string, op: Json, shared: SharedProblems): ErrorCode[] {
  const write = WRITES.has(method);
  const security = (op.security ?? []) as Array<Record<string, string[]>>;
  const access: Access = security.length === 0 ? 'public' : security.some((s) => 'apiKey' in s) ? 'api' : 'staff';
  const own = (op[OWN_PROBLEMS] ?? {}) as Partial<Record<ErrorCode, string>>;
  delete op[OWN_PROBLEMS];

  if (write) op.security = security.map((s) => ('staffSession' in s ? { ...s, csrfToken: [] } : s));
  if (write && access !== 'public') op.parameters = [...(op.parameters ?? []), ref('parameters', 'IdempotencyKey')];
  if (op.requestBody !== undefined) {
    // Optional bodies are optional: an operation whose fields are all optional takes no body at all.
    const schema = Object.values(op.requestBody.content as Record<string, { schema: Json }>)[0]?.schema ?? {};
    op.requestBody.required = Array.isArray(schema.required) && schema.required.length > 0;
    // @fastify/swagger copies the body schema's description to the request body: say it once.
    if (op.requestBody.description === schema.description) delete schema.description;
  }

  for (const [status, answer] of Object.entries(op.responses as Record<string, Json>))
    answer.headers = { ...answer.headers, ...answerHeaders(Number(status), access, write).headers };

  const codes = new Map<ErrorCode, string>(standardProblems(op, write, access).map((c) => [c, '']));
  for (const [code, text] of Object.entries(own)) codes.set(code as ErrorCode, text ?? '');
  const byStatus = new Map<string, Array<[ErrorCode, string]>>();
  for (const [code, text] of codes) {
    const status = PROBLEM_CATALOGUE[code].status;
    const key = status >= 500 ? SERVER_ERRORS : String(status);
    byStatus.set(key, [...(byStatus.get(key) ?? []), [code, text]]);
  }
  for (const key of [...byStatus.keys()].sort()) {
    // The server errors' headers are 503's, the one of them that carries Retry-After.
    const headers = answerHeaders(key === SERVER_ERRORS ? 503 : Number(key), access, write);
    op.responses[key] = shared.ref(key, byStatus.get(key)!, headers);
  }
  // What a code means for this operation, when it says more than the catalogue: in its description,
  // as the shared answers hold the catalogue's words.
  const meanings = [...codes].filter(([, text]) => text !== '');
  if (meanings.length > 0)
    op.description += `\n\nWhat its problems mean here:\n${meanings.map(([code, text]) => `- ${PROBLEM_CATALOGUE[code].status} \`${code}\`: ${text}`).join('\n')}`;
  return [...codes.keys()];
}

/** The name a shared parameter goes by: `TicketId` for a path id, else its own name (`StartingAfter`). */
function parameterName(p: Json): string {
  const kind = Object.entries(EXAMPLE_IDS).find(([, id]) => id === p.example)?.[0];
  return pascal(kind === undefined ? p.name.replace(/_/g, '-') : `${kind}-${p.name}`);
}

/**
 * A parameter several operations declare alike (a ticket's id, a period's `from`) is stated once
 * in components/parameters and referred to, as the problem answers are: the route schemas that
 * validate requests declare it at each route, the document says it once.
 */
function shareParameters(operations: Json[], shared: Json): void {
  const count = new Map<string, number>();
  for (const op of operations)
    for (const p of (op.parameters ?? []) as Json[])
      if (p.$ref === undefined) count.set(JSON.stringify(p), (count.get(JSON.stringify(p)) ?? 0) + 1);
  const names = new Map<string, string>();
  for (const [text, n] of count) {
    if (n < 2) continue;
    const p = JSON.parse(text) as Json;
    let name = parameterName(p);
    for (let i = 2; name in shared; i++) name = `${parameterName(p)}${i}`;
    shared[name] = p;
    names.set(text, name);
  }
  for (const op of operations) {
    if (op.parameters === undefined) continue;
    op.parameters = (op.parameters as Json[]).map((p) => {
      const name = p.$ref === undefined ? names.get(JSON.stringify(p)) : undefined;
      return name === undefined ? p : ref('parameters', name);
    });
  }
}

/**
 * An answer's whole example is stated once in components/examples and referred to by name (the
 * answers that show the same object, and an event's webhook, share it): a code generator then
 * leaves the examples out of the types it makes, and a renderer still shows each.
 */
function shareExamples(operations: Json[], shared: Json): void {
  const names = new Map(Object.entries(shared).map(([name, example]) => [JSON.stringify(example.value), name]));
  const events = Object.values(shared).map((example) => JSON.stringify(example.value));
  for (const op of operations) {
    for (const [status, answer] of Object.entries(op.responses as Record<string, Json>)) {
      if (!/^2/.test(status)) continue;
      for (const media of Object.values((answer.content ?? {}) as Record<string, Json>)) {
        if (media.example === undefined) continue;
        const text = JSON.stringify(media.example);
        let name = names.get(text);
        // An answer that an event example already shows whole (the ticket `ticket.collected` carries
        // is what collect answers) is not stated again: issue 36's 250 KB budget.
        if (name === undefined && events.some((event) => event.includes(text))) {
          delete media.example;
          continue;
        }
        if (name === undefined) {
          name = pascal(op.operationId);
          shared[name] = { summary: answer.description, value: media.example };
          names.set(text, name);
        }
        delete media.example;
        media.examples = { [name]: ref('examples', name) };
      }
    }
  }
}

/** @fastify/swagger's transformObject: completes every operation of the document. */
export function finishDocument(doc: Json): Json {
  const used = new Set<ErrorCode>();
  const shared = new SharedProblems();
  const operations: Json[] = [];
  for (const item of Object.values(doc.paths as Record<string, Record<string, Json>>)) {
    for (const [method, op] of Object.entries(item)) {
      for (const code of finishOperation(method, op, shared)) used.add(code);
      operations.push(op);
    }
  }
  const parameters: Json = { ...PARAMETERS, ...doc.components?.parameters };
  shareParameters(operations, parameters);
  const examples: Json = { ...doc.components?.examples };
  shareExamples(operations, examples);
  const responses: Json = { ...shared.responses, ...doc.components?.responses };
  shareSuccessAnswers(operations, responses);
  const requestBodies: Json = {};
  shareRequestBodies(operations, requestBodies);
  doc.components = {
    ...doc.components,
    responses,
    requestBodies,
    headers: HEADERS,
    parameters,
    examples: { ...problemExamples(PROBLEM_CODES.filter((c) => used.has(c))), ...examples },
  };
  shareFieldSchemas(doc);
  shareSecurity(doc, operations);
  return doc;
}

/**
 * The API key is the document's default security, named once at the top (OpenAPI 3.1 §4.8.1): an
 * operation that takes the key alone inherits it; one that takes the staff session, or nothing
 * (`security: []`), still says so. Some 80 operations repeated `[{"apiKey":[]}]` (issue 36 item 14).
 */
function shareSecurity(doc: Json, operations: Json[]): void {
  const byKey = JSON.stringify(SECURITY.api);
  doc.security = SECURITY.api;
  for (const op of operations) if (JSON.stringify(op.security) === byKey) delete op.security;
}
