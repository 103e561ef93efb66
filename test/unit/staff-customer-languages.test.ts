// The staff page's branch settings offer every language the customer page and the board speak:
// a language the API accepts but the picker leaves out is one no manager can choose.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { SUPPORTED_LANGUAGES } from '../../src/domain/branch-settings.ts';
import { CUSTOMER_LANGUAGES } from '../../web/staff/src/ui/customer-languages.ts';

test('the branch settings picker lists exactly the languages the API accepts, each named in itself', () => {
  assert.deepEqual(
    CUSTOMER_LANGUAGES.map(([code]) => code),
    [...SUPPORTED_LANGUAGES],
  );
  for (const [code, name] of CUSTOMER_LANGUAGES) {
    assert.equal(new Intl.DisplayNames([code], { type: 'language' }).of(code)?.toLowerCase(), name.toLowerCase(), code);
  }
});
