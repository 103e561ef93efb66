// Password hashing (decision 0014): argon2id at OWASP's parameters, scrypt hashes of earlier
// versions still verify, and nothing stored can make verification throw.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { randomBytes, scryptSync } from 'node:crypto';
import { hashPassword, needsRehash, verifyPassword } from '../../src/domain/password-hash.ts';

test('argon2id hashes verify the right password only, with a fresh salt each time', async () => {
  const a = await hashPassword('correct horse battery');
  const b = await hashPassword('correct horse battery');
  assert.match(a, /^\$argon2id\$v=19\$m=19456,t=2,p=1\$/);
  assert.notEqual(a, b);
  assert.equal(await verifyPassword('correct horse battery', a), true);
  assert.equal(await verifyPassword('correct horse batterY', a), false);
  assert.equal(await verifyPassword('', a), false);
  assert.equal(needsRehash(a), false);
});

test('scrypt hashes of earlier versions verify and ask for a rehash', async () => {
  const salt = randomBytes(16);
  const key = scryptSync('long enough secret', salt, 32, { N: 1 << 15, r: 8, p: 1, maxmem: 64 * 1024 * 1024 });
  const legacy = `scrypt$32768$8$1$${salt.toString('base64url')}$${key.toString('base64url')}`;
  assert.equal(await verifyPassword('long enough secret', legacy), true);
  assert.equal(await verifyPassword('long enough secreT', legacy), false);
  assert.equal(needsRehash(legacy), true);
  assert.equal(
    needsRehash('$argon2id$v=19$m=65536,t=3,p=4$c2FsdHNhbHRzYWx0c2FsdA$aGFzaGhhc2hoYXNoaGFzaGhhc2hoYXNoaGFzaGhhc2g'),
    true,
    'other parameters are rehashed too',
  );
});

test('a damaged or foreign stored hash never verifies and never throws', async () => {
  const good = await hashPassword('correct horse battery');
  const damaged = [
    '',
    'plain text',
    'scrypt$x$8$1$a$b',
    good.replace('m=19456', 'm=9999999'),
    good.replace('t=2', 't=0'),
    good.replace('p=1', 'p=0'),
    good.slice(0, -10),
    `${good}==`,
    'scrypt$1024$8$1$c2FsdHNhbHRzYWx0$aGFzaGhhc2hoYXNoaGFzaGhhc2g',
    'scrypt$3$8$1$c2FsdHNhbHRzYWx0c2FsdA$aGFzaGhhc2hoYXNoaGFzaGhhc2hoYXNo',
  ];
  for (const stored of damaged) assert.equal(await verifyPassword('correct horse battery', stored), false, stored);
});
