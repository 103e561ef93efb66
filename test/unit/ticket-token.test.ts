import { test } from 'node:test';
import assert from 'node:assert/strict';
import { TICKET_TOKEN_PATTERN, ticketToken } from '../../src/domain/ticket-token.ts';

test('a ticket token is 32 upper-case base32 characters whose random part differs every time', () => {
  const tokens = Array.from({ length: 1000 }, () => ticketToken(1_800_000_000_000));
  for (const tk of tokens) assert.match(tk, new RegExp(TICKET_TOKEN_PATTERN));
  assert.equal(new Set(tokens.map((tk) => tk.slice(6))).size, 1000);
  assert.equal(new Set(tokens.map((tk) => tk.slice(0, 6))).size, 1, 'one second, one prefix');
});

test('tokens of later seconds sort after earlier ones, so the token index grows at its end', () => {
  let previous = ticketToken(1_800_000_000_000);
  for (let s = 1; s <= 5000; s++) {
    const next = ticketToken(1_800_000_000_000 + s * 1000);
    assert.ok(previous < next, `${previous} < ${next}`);
    previous = next;
  }
});

test('the pattern accepts the 26-character tokens of tickets made before the prefix, and nothing else', () => {
  const re = new RegExp(TICKET_TOKEN_PATTERN);
  assert.match('ABCDEFGHIJKLMNOPQRSTUVWXYZ', re);
  for (const bad of [
    'ABCDEFGHIJKLMNOPQRSTUVWXY',
    'ABCDEFGHIJKLMNOPQRSTUVWXYZ2',
    'abcdefghijklmnopqrstuvwxyz',
    'ABCDEFGHIJKLMNOPQRSTUVWXYZ01234',
  ])
    assert.doesNotMatch(bad, re);
});
