import { describe, it } from 'node:test';
import assert from 'node:assert/strict';
import { isE164, isQueueName } from '../../src/domain/validation.ts';

describe('isQueueName', () => {
  it('accepts 1 to 16 letters, digits and underscores', () => {
    for (const s of ['A', 'drinks', 'Q_2', 'a'.repeat(16)]) assert.equal(isQueueName(s), true, s);
  });

  it('rejects anything else', () => {
    for (const s of ['', 'a'.repeat(17), 'A-1', 'A 1', 'café', 'A\n', '../x']) {
      assert.equal(isQueueName(s), false, JSON.stringify(s));
    }
  });
});

describe('isE164', () => {
  it('accepts + then 7 to 15 digits not starting with 0', () => {
    for (const s of ['+3312345', '+33612345678', '+123456789012345']) assert.equal(isE164(s), true, s);
  });

  it('rejects anything else', () => {
    for (const s of ['', '33612345678', '+0612345678', '+331234', '+1234567890123456', '+33 6 12', '+33612345678\n']) {
      assert.equal(isE164(s), false, JSON.stringify(s));
    }
  });
});
