// `npm test` builds the staff page first; a test file run on its own builds it here.
import { execFileSync } from 'node:child_process';
import { existsSync } from 'node:fs';
import path from 'node:path';
import { STAFF_DIST } from '../../src/http/routes/staff-app.ts';

export function ensureStaffBuilt(): void {
  if (existsSync(path.join(STAFF_DIST, 'index.html'))) return;
  execFileSync(process.execPath, ['node_modules/vite/bin/vite.js', 'build', '--config', 'web/staff/vite.config.ts'], { stdio: 'ignore' });
}
