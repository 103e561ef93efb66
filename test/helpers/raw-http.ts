// Raw HTTP/1.1 over a TCP socket, for requests no HTTP client library would send (two Host
// headers, CONNECT, writes spread over time) and the answers Node would give by itself.
import assert from 'node:assert/strict';
import { connect } from 'node:net';

export type RawAnswer = { status: number; headers: Map<string, string>; body: string };

/**
 * Writes bytes no HTTP client library would send (a string, or writes spread over time) and
 * collects every answer until the server closes the connection.
 */
export function rawExchange(url: string, send: string | ((write: (bytes: string) => void) => Promise<void>)): Promise<RawAnswer[]> {
  const { hostname, port } = new URL(url);
  return new Promise((resolve, reject) => {
    const socket = connect(Number(port), hostname, () => {
      if (typeof send === 'string') socket.write(send);
      else send((bytes) => socket.write(bytes)).catch(reject);
    });
    let all = '';
    socket.setTimeout(10_000, () => reject(new Error(`the server never ended the connection; got ${JSON.stringify(all)}`)));
    socket.on('data', (d: Buffer) => (all += d.toString()));
    socket.on('error', reject);
    socket.on('end', () => {
      socket.destroy();
      const answers: RawAnswer[] = [];
      let rest = all;
      while (rest.length > 0) {
        const headEnd = rest.indexOf('\r\n\r\n');
        const [statusLine, ...lines] = rest.slice(0, headEnd).split('\r\n');
        const headers = new Map(lines.map((l) => [l.slice(0, l.indexOf(':')).toLowerCase(), l.slice(l.indexOf(':') + 1).trim()]));
        const length = Number(headers.get('content-length') ?? 0);
        const start = headEnd + 4;
        answers.push({ status: Number(statusLine!.split(' ')[1]), headers, body: rest.slice(start, start + length) });
        rest = rest.slice(start + length);
      }
      resolve(answers);
    });
  });
}

export function assertProblemAnswer(a: RawAnswer, status: number, code: string): void {
  assert.equal(a.status, status, a.body);
  assert.match(a.headers.get('content-type') ?? '', /^application\/problem\+json/);
  const p = JSON.parse(a.body);
  assert.equal(p.code, code);
  assert.equal(p.status, status);
  assert.equal(p.type, `/problems/${code}`);
  assert.match(p.request_id, /^req_/);
  assert.equal(p.request_id, a.headers.get('request-id'));
}
