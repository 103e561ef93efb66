// The few Wallet REST API calls readybell makes (walletobjects/v1): insert the class and an
// object, patch an object, add a message to it. Each request is bounded by its own timeout (the
// ring's send timeout), not by the ring deadline: a request Google may already have accepted is
// never cut off (see ../../send-once.ts). The service account's address and token stay out of logs.
import type { AccessTokens } from './access-token.ts';

export type ApiAnswer = { status: number; body: unknown };

export type WalletApi = {
  /** Inserts a class or object; 409 (it exists already) is an answer like any other. */
  insert(kind: 'genericClass' | 'genericObject', resource: object): Promise<ApiAnswer>;
  patchObject(objectId: string, fields: object): Promise<ApiAnswer>;
  addMessage(objectId: string, message: object): Promise<ApiAnswer>;
};

export function walletApi(apiUrl: string, tokens: AccessTokens, timeoutMs: number): WalletApi {
  const base = `${apiUrl}/walletobjects/v1`;
  async function call(method: string, path: string, body: object): Promise<ApiAnswer> {
    const res = await fetch(base + path, {
      method,
      headers: { authorization: `Bearer ${await tokens.get()}`, 'content-type': 'application/json' },
      body: JSON.stringify(body),
      signal: AbortSignal.timeout(timeoutMs),
    });
    return { status: res.status, body: await res.json().catch(() => null) };
  }
  const object = (id: string): string => `/genericObject/${encodeURIComponent(id)}`;
  return {
    insert: (kind, resource) => call('POST', `/${kind}`, resource),
    patchObject: (id, fields) => call('PATCH', object(id), fields),
    addMessage: (id, message) => call('POST', `${object(id)}/addMessage`, { message }),
  };
}
