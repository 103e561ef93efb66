// What every request's values must be before any route sees them, checked once for all routes: no
// string of the path, the query or the body holds a NUL character or a lone UTF-16 surrogate; a
// body is nested at most MAX_BODY_DEPTH levels. (Its framing is request-framing.ts's.)
//
// PostgreSQL cannot hold NUL in text, and its JSON types refuse both NUL and a lone surrogate
// (\ud800), so such a string was a 500 there and was stored on SQLite: refusing it here gives
// both stores the same answer, and no route can forget it. The depth bound keeps every later walk
// of a body (the idempotency fingerprint, JSON.stringify) far from the stack's end; Fastify's
// JSON parser (secure-json-parse) has no depth option. The walk costs about 0.5 µs for a create's
// path, query and body.
import type { FastifyInstance, FastifyRequest } from 'fastify';
import { AppError } from '../../domain/errors.ts';
import { formParams } from '../../domain/twilio-signature.ts';

/** readybell's deepest body is 3 levels (branch settings); 32 leaves room for any client's shape. */
export const MAX_BODY_DEPTH = 32;

type Flaw = 'nul' | 'lone-surrogate';
type Path = { parent: Path | null; key: string } | null;
type Finding = { flaw: Flaw; path: Path; inName: boolean };

const flawOf = (s: string): Flaw | null => (s.includes('\u0000') ? 'nul' : s.isWellFormed() ? null : 'lone-surrogate');

/**
 * Every string in `root` (member names included) with a flaw, in document order, or 'too-deep'
 * when objects and arrays nest deeper than MAX_BODY_DEPTH. Iterative, so no depth overflows it.
 */
export function inspect(root: unknown): Finding[] | 'too-deep' {
  const found: Finding[] = [];
  // A member name with a flaw goes on the stack in its place, so that it is reported in order.
  const stack: Array<{ value: unknown; level: number; path: Path; badName?: Flaw }> = [{ value: root, level: 0, path: null }];
  while (stack.length > 0) {
    const { value, level, path, badName } = stack.pop()!;
    if (badName !== undefined) {
      found.push({ flaw: badName, path, inName: true });
      continue;
    }
    if (typeof value === 'string') {
      const flaw = flawOf(value);
      if (flaw !== null) found.push({ flaw, path, inName: false });
      continue;
    }
    if (value === null || typeof value !== 'object') continue;
    if (level >= MAX_BODY_DEPTH) return 'too-deep';
    // Children are pushed last first, so that they come off the stack in document order.
    if (Array.isArray(value)) {
      for (let i = value.length - 1; i >= 0; i--) stack.push({ value: value[i], level: level + 1, path: { parent: path, key: String(i) } });
      continue;
    }
    const keys = Object.keys(value);
    for (let i = keys.length - 1; i >= 0; i--) {
      const key = keys[i]!;
      const flaw = flawOf(key);
      if (flaw !== null) stack.push({ value: null, level, path, badName: flaw });
      else stack.push({ value: (value as Record<string, unknown>)[key], level: level + 1, path: { parent: path, key } });
    }
  }
  return found;
}

function pointer(path: Path): string {
  const keys: string[] = [];
  for (let p = path; p !== null; p = p.parent) keys.push(p.key.replaceAll('~', '~0').replaceAll('/', '~1'));
  return keys.length === 0 ? '' : `/${keys.reverse().join('/')}`;
}

const WHAT: Record<Flaw, string> = {
  nul: 'the NUL character (U+0000)',
  'lone-surrogate': 'a lone UTF-16 surrogate (not well-formed Unicode)',
};

/** Shaped like the schema validator's errors, so toProblem words it as any 422 validation-failed. */
function validationError(found: Finding[], context: 'body' | 'querystring'): Error {
  const validation = found.map((f) => ({
    instancePath: pointer(f.path),
    message: f.inName ? `has a member name containing ${WHAT[f.flaw]}` : `must not contain ${WHAT[f.flaw]}`,
  }));
  return Object.assign(new Error('validation'), { validation, validationContext: context });
}

/**
 * The body as its values will be read. A form a route keeps as text (the SMS webhooks keep theirs
 * raw, for the signature over every parameter) is checked decoded: `Body=a%00b` holds no NUL as
 * text, but its Body does once decoded. A name given once is one string, a repeated one an array.
 */
function decodedBody(req: FastifyRequest): unknown {
  if (typeof req.body !== 'string') return req.body;
  const type = req.headers['content-type'] ?? '';
  // JSON a route keeps as text (Square's notifications, signed over their bytes) is checked parsed:
  // "a\u0000b" holds no NUL as text. Text that is not JSON is the route's to refuse.
  if (/^application\/json\b/i.test(type)) {
    try {
      return JSON.parse(req.body) as unknown;
    } catch {
      return req.body;
    }
  }
  if (!/^application\/x-www-form-urlencoded\b/i.test(type)) return req.body;
  return Object.fromEntries([...formParams(req.body)].map(([name, values]) => [name, values.length === 1 ? values[0] : values]));
}

export function registerInputGuard(app: FastifyInstance): void {
  app.addHook('preValidation', async (req: FastifyRequest) => {
    // A path parameter with such a character names nothing that can exist.
    const inParams = inspect(req.params);
    if (inParams === 'too-deep' || inParams.length > 0) throw new AppError('not-found', 'No such resource.');
    // The query parser makes flat objects (arrays for repeated names): only a body can be deep.
    const inQuery = inspect(req.query);
    if (inQuery !== 'too-deep' && inQuery.length > 0) throw validationError(inQuery, 'querystring');
    if (req.body === undefined) return;
    const inBody = inspect(decodedBody(req));
    if (inBody === 'too-deep') {
      throw new AppError(
        'invalid-json',
        `The request body is nested more than ${MAX_BODY_DEPTH} levels deep; readybell accepts at most ${MAX_BODY_DEPTH}.`,
      );
    }
    if (inBody.length > 0) throw validationError(inBody, 'body');
  });
}
