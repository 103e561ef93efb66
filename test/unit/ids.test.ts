import { test } from 'node:test';
import assert from 'node:assert/strict';
import { isId, newId } from '../../src/domain/ids.ts';

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
