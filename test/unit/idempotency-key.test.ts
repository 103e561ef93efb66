import { describe, it } from 'node:test';
import assert from 'node:assert/strict';
import { parseIdempotencyKey } from '../../src/domain/idempotency-key.ts';

function keyOf(header: string | string[] | undefined): string | null {
  const parsed = parseIdempotencyKey(header);
  assert.equal(parsed.ok, true, JSON.stringify(parsed));
  return parsed.ok ? parsed.key : null;
}

function detailOf(header: string | string[]): string {
  const parsed = parseIdempotencyKey(header);
  assert.equal(parsed.ok, false, `${JSON.stringify(header)} should be rejected`);
  return parsed.ok ? '' : parsed.detail;
}

describe('parseIdempotencyKey', () => {
  it('treats a missing header as no key', () => {
    assert.equal(keyOf(undefined), null);
  });

  it('gives the same key bare and quoted', () => {
    assert.equal(keyOf('abc'), 'abc');
    assert.equal(keyOf('"abc"'), 'abc');
    assert.equal(keyOf(['abc']), 'abc');
  });

  it('unescapes \\" and \\\\ in the quoted form', () => {
    assert.equal(keyOf('"a\\"b\\\\c"'), 'a"b\\c');
  });

  it('allows inner spaces and trims surrounding whitespace of the header', () => {
    assert.equal(keyOf('  order 42\t'), 'order 42');
    assert.equal(keyOf(' "order 42" '), 'order 42');
  });

  it('accepts exactly 255 characters, bare or quoted', () => {
    assert.equal(keyOf('k'.repeat(255)), 'k'.repeat(255));
    assert.equal(keyOf(`"${'k'.repeat(255)}"`), 'k'.repeat(255));
  });

  it('rejects empty keys', () => {
    assert.match(detailOf(''), /empty/);
    assert.match(detailOf('   '), /empty/);
    assert.match(detailOf('""'), /empty/);
  });

  it('rejects keys longer than 255 characters', () => {
    assert.match(detailOf('k'.repeat(256)), /256.*255/);
    assert.match(detailOf(`"${'k'.repeat(256)}"`), /256.*255/);
  });

  it('rejects control and non-ASCII characters', () => {
    assert.match(detailOf('a\tb'), /printable ASCII/);
    assert.match(detailOf('a\u0000b'), /printable ASCII/);
    assert.match(detailOf('café'), /printable ASCII/);
    assert.match(detailOf('"a\u007fb"'), /printable ASCII/);
  });

  it('rejects malformed quoted strings', () => {
    assert.match(detailOf('"abc'), /closing quote/);
    assert.match(detailOf('"abc\\"'), /closing quote/);
    assert.match(detailOf('"a\\nb"'), /backslash/);
    assert.match(detailOf('"abc"def'), /after its closing quote/);
    assert.match(detailOf('"a", "b"'), /after its closing quote/);
  });

  it('rejects leading or trailing spaces inside the quotes', () => {
    assert.match(detailOf('" abc"'), /start or end with a space/);
    assert.match(detailOf('"abc "'), /start or end with a space/);
  });

  it('rejects several header values', () => {
    assert.match(detailOf(['a', 'b']), /once/);
  });
});
