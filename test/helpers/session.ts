// Staff sessions in API tests: sign in like the staff page does, then send requests with the
// cookie (and the CSRF token on unsafe methods), as a browser on the same origin would.
import type { Res, TestApp } from './app.ts';

export type Signed = { status: number; headers: Headers; cookie: string; setCookie: string; csrf: string; body: any };

export async function signIn(t: TestApp, email: string, password: string, headers: Record<string, string> = {}): Promise<Signed> {
  const res = await t.request('POST', '/v1/sessions', { key: null, body: { email, password }, headers });
  const setCookie = res.headers.get('set-cookie') ?? '';
  const cookie = setCookie.split(';')[0] ?? '';
  return { status: res.status, headers: res.headers, cookie, setCookie, csrf: res.body?.csrf_token ?? '', body: res.body };
}

export async function signInOk(t: TestApp, email: string, password: string): Promise<Signed> {
  const s = await signIn(t, email, password);
  if (s.status !== 201) throw new Error(`sign-in failed: ${s.status} ${JSON.stringify(s.body)}`);
  return s;
}

/** A request with the session cookie; unsafe methods carry the CSRF token unless `csrf: null`. */
export function asSession(t: TestApp, s: Signed) {
  return (
    method: string,
    path: string,
    o: { body?: unknown; csrf?: string | null; headers?: Record<string, string> } = {},
  ): Promise<Res> => {
    const headers: Record<string, string> = { cookie: s.cookie, ...o.headers };
    const csrf = o.csrf === undefined ? s.csrf : o.csrf;
    if (method !== 'GET' && method !== 'HEAD' && csrf !== null) headers['x-csrf-token'] = csrf;
    return t.request(method, path, { key: null, body: o.body, headers });
  };
}
