// A second readybell node in its own process, on the store named by DATABASE_URL or DATA_DIR: what
// a load balancer's second machine would be. A separate process matters: nodes share nothing but
// the store, so whatever one node keeps in memory cannot hide a race between them.
// Prints "listening <port>"; exits when its stdin closes (so it never outlives the test).
import { loadConfig } from '../../src/config.ts';
import { createApp } from '../../src/app.ts';

const app = await createApp(loadConfig({ ...process.env, LOG_LEVEL: 'silent', PORT: '0', PUBLIC_URL: 'http://localhost:3000' }));
await app.server.listen({ port: 0, host: '127.0.0.1' });
const address = app.server.server.address();
process.stdout.write(`listening ${typeof address === 'object' && address !== null ? address.port : 0}\n`);
process.stdin.resume();
process.stdin.on('end', () => void app.close().then(() => process.exit(0)));
