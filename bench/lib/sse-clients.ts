// A child process holding many customer-page streams open, so that their client side does not
// count in the memory of the process being measured. Reads stream URLs (one per line) on stdin,
// prints "open" once every stream got its first snapshot, and stays until killed.
import { openStream } from './sse.ts';

let input = '';
process.stdin.setEncoding('utf8');
for await (const chunk of process.stdin) input += chunk;
const urls = input.split('\n').filter(Boolean);
const BATCH = 200;
for (let i = 0; i < urls.length; i += BATCH) await Promise.all(urls.slice(i, i + BATCH).map((u) => openStream(u).opened));
process.stdout.write('open\n');
setInterval(() => {}, 60_000);
