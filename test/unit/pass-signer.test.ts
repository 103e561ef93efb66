// Signing is shared fairly (decision 0087): a branch holds at most its share of the signing
// places and an account at most its own across its branches; a place is given back once, when the
// signing ends or is let go unused.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { PassSigner } from '../../src/channels/wallet/apple/pass-signer.ts';

const keys = { wwdr: '', cert: '', key: '', keyPassphrase: undefined };

test('a branch and an account each hold at most their share of the signing places', () => {
  const signer = new PassSigner(keys, { threads: 1, perBranch: 2, perAccount: 3 });
  const a1 = signer.admit({ branchId: 'b1', accountId: 'acc' });
  const a2 = signer.admit({ branchId: 'b1', accountId: 'acc' });
  assert.ok(a1 && a2);
  assert.equal(signer.admit({ branchId: 'b1', accountId: 'acc' }), null, "the branch's share is taken");
  assert.ok(signer.admit({ branchId: 'b2', accountId: 'acc' }), 'another branch of the account has room');
  assert.equal(signer.admit({ branchId: 'b3', accountId: 'acc' }), null, "the account's share is taken");
  assert.ok(signer.admit({ branchId: 'b9', accountId: 'other' }), 'another account is not held back');
  a1.release();
  a1.release();
  assert.ok(signer.admit({ branchId: 'b3', accountId: 'acc' }), 'a place given back is free again');
  assert.equal(signer.admit({ branchId: 'b3', accountId: 'acc' }), null, 'given back once, counted once');
});
