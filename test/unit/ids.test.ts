import { test } from 'node:test';
import assert from 'node:assert/strict';
import { firstIdAt, isId, newId } from '../../src/domain/ids.ts';

test('ids carry their type prefix and sort by creation time, even within one millisecond', () => {
  const ids = Array.from({ length: 5000 }, (_, i) => newId('ticket', 1_795_000_000_000 + Math.floor(i / 1000)));
  assert.ok(ids.every((id) => isId('ticket', id)));
  assert.deepEqual([...ids].sort(), ids);
  assert.equal(new Set(ids).size, ids.length);
  assert.ok(newId('event', 1_795_000_000_001) > newId('event', 1_795_000_000_000));
});

test('isId refuses other prefixes and malformed bodies', () => {
  const id = newId('ticket');
  assert.equal(isId('event', id), false);
  assert.equal(isId('ticket', `${id}x`), false);
  assert.equal(isId('ticket', 'tk_' + 'I'.repeat(26)), false);
  assert.equal(isId('ticket', 'tk_'), false);
});

test('firstIdAt splits ids at a creation time: a range of times is a range of ids', () => {
  for (const ms of [0, 1, 1_795_000_000_000, 1_795_000_000_001, 32 ** 10 - 1]) {
    const first = firstIdAt('ticket', ms);
    assert.ok(isId('ticket', first));
    for (let i = 0; i < 200; i++) {
      if (ms > 0) assert.ok(newId('ticket', ms - 1) < first, `made at ${ms - 1}`);
      assert.ok(newId('ticket', ms) >= first, `made at ${ms}`);
    }
  }
  // Times no id can carry: before all of them, after all of them.
  assert.equal(firstIdAt('ticket', -5), firstIdAt('ticket', 0));
  assert.ok(newId('ticket', 32 ** 10 - 2) < firstIdAt('ticket', 8.64e15));
});
