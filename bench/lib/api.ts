// Talking to readybell's API from the bench: single checked calls (fetch) before a run, so a
// broken contract fails with the server's answer rather than as a wall of errors in the table,
// and bulk ticket creation (autocannon) for the scenarios that need tickets to exist.
import { HarnessError } from './proc.ts';
import { measure } from './load.ts';
import type { Readybell } from './readybell.ts';

export const CREATE_BODY = { queue: 'A', external_ref: 'order-123' };

export function authHeaders(server: Readybell, json: boolean): Record<string, string> {
  return json ? { authorization: `Bearer ${server.key}`, 'content-type': 'application/json' } : { authorization: `Bearer ${server.key}` };
}

/** One request whose status must be `expect`; returns the parsed body. */
export async function call(
  server: Readybell,
  method: string,
  path: string,
  body: unknown,
  expect: number,
): Promise<Record<string, unknown>> {
  const res = await fetch(`${server.url}${path}`, {
    method,
    headers: authHeaders(server, body !== undefined),
    ...(body !== undefined ? { body: JSON.stringify(body) } : {}),
  });
  const text = await res.text();
  if (res.status !== expect) {
    throw new HarnessError(`${method} ${path} answered ${res.status}, expected ${expect}: ${text.slice(0, 500)}`);
  }
  try {
    return JSON.parse(text) as Record<string, unknown>;
  } catch {
    throw new HarnessError(`${method} ${path} answered ${res.status} with a body that is not JSON: ${text.slice(0, 200)}`);
  }
}

export async function createOne(server: Readybell): Promise<string> {
  const t = await call(server, 'POST', '/v1/tickets', CREATE_BODY, 201);
  if (typeof t['id'] !== 'string' || !t['id'].startsWith('tk_') || t['status'] !== 'created') {
    throw new HarnessError(`POST /v1/tickets answered 201 without a created tk_… ticket: ${JSON.stringify(t).slice(0, 300)}`);
  }
  return t['id'];
}

/**
 * Creates `count` tickets through the API with many connections (group commit rewards
 * concurrency) and returns their ids. Any non-201 is a harness failure: the runs that use these
 * ids rely on every one of them existing.
 */
export async function precreate(server: Readybell, count: number, connections: number): Promise<string[]> {
  const ids: string[] = [];
  let unreadable = 0;
  const m = await measure({
    url: `${server.url}/v1/tickets`,
    method: 'POST',
    headers: authHeaders(server, true),
    body: JSON.stringify({ queue: 'A', external_ref: 'bench-precreate' }),
    connections: Math.min(connections, count),
    duration: 0,
    amount: count,
    onResponse: (status, body) => {
      if (status !== 201) return;
      try {
        ids.push((JSON.parse(body) as { id: string }).id);
      } catch {
        unreadable += 1;
      }
    },
  });
  if (m.errors > 0 || unreadable > 0 || ids.length !== count) {
    const codes = Object.entries(m.statusCounts)
      .map(([c, n]) => `${c}×${n}`)
      .join(', ');
    throw new HarnessError(
      `pre-creating ${count} tickets got ${ids.length} ids (${codes}; ${m.errors} errors, ${unreadable} unreadable bodies)`,
    );
  }
  return ids;
}

/** Hands out each id once; null when they are gone. */
export function idPool(ids: readonly string[]): { next(): string | null; remaining(): number } {
  let i = 0;
  return {
    next: () => (i < ids.length ? (ids[i++] ?? null) : null),
    remaining: () => ids.length - i,
  };
}
