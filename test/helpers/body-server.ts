// A local HTTP server whose handler is given the request's whole body as text: the fakes of outside
// services (Square, Google Wallet, the SMS provider) read bodies this one way.
import { createServer, type IncomingMessage, type Server, type ServerResponse } from 'node:http';

export function bodyServer(handle: (req: IncomingMessage, body: string, res: ServerResponse) => void): Server {
  return createServer((req, res) => {
    const chunks: Buffer[] = [];
    req.on('data', (c: Buffer) => chunks.push(c));
    req.on('end', () => handle(req, Buffer.concat(chunks).toString(), res));
  });
}
