import { test } from 'node:test';
import assert from 'node:assert/strict';
import { MemoryPresence } from '../../src/realtime/presence.ts';

test('entries live until their TTL, are refreshed by touch, and leave on demand', async () => {
  let now = 1_000;
  const p = new MemoryPresence({ now: () => now, sweepMs: 0 });
  await p.touch('page:tk_1', 'a', {}, 100);
  await p.touch('page:tk_1', 'b', { x: 1 }, 300);
  assert.deepEqual((await p.members('page:tk_1')).map((m) => m.member).sort(), ['a', 'b']);
  now += 150;
  assert.deepEqual(
    (await p.members('page:tk_1')).map((m) => m.member),
    ['b'],
    'a expired',
  );
  await p.touch('page:tk_1', 'b', { x: 2 }, 300);
  now += 250;
  assert.deepEqual(await p.members('page:tk_1'), [{ member: 'b', info: { x: 2 } }], 'refreshed by the second touch');
  await p.leave('page:tk_1', 'b');
  assert.deepEqual(await p.members('page:tk_1'), []);
  assert.deepEqual(await p.members('board:br_1:test'), []);
  await p.close();
});

test('sweep drops expired entries of scopes nobody asks about', async () => {
  let now = 0;
  const p = new MemoryPresence({ now: () => now, sweepMs: 0 });
  for (let i = 0; i < 100; i++) await p.touch(`page:tk_${i}`, 'm', {}, 10);
  now = 20;
  p.sweep();
  assert.equal((p as unknown as { scopes: Map<string, unknown> }).scopes.size, 0);
  await p.close();
});
