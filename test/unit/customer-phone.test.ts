// The rules of the phone number a customer types (src/domain/customer-phone.ts): how it is read,
// how it is shown back, and when the page may ask for it at all.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { isPhoneCountry, maskPhone, parseCustomerPhone, phoneEntryOffered, type PhoneEntryFacts } from '../../src/domain/customer-phone.ts';
import { withDefaults } from '../../src/domain/branch-settings.ts';

test("read as E.164: international numbers anywhere, national ones only in the branch's country", () => {
  assert.deepEqual(parseCustomerPhone('+44\u00a07400\u00a0123456', null), { ok: true, e164: '+447400123456' });
  assert.deepEqual(parseCustomerPhone(' +44 (0)7400-123-456 ', null), { ok: true, e164: '+447400123456' });
  assert.deepEqual(parseCustomerPhone('07400 123456', 'GB'), { ok: true, e164: '+447400123456' });
  assert.deepEqual(parseCustomerPhone('06 12 34 56 78', 'FR'), { ok: true, e164: '+33612345678' });
  assert.deepEqual(
    parseCustomerPhone('+33\u00a06\u00a012\u00a034\u00a056\u00a078', 'GB'),
    { ok: true, e164: '+33612345678' },
    "+ wins over the branch's country",
  );
  assert.deepEqual(parseCustomerPhone('(415) 555-0123', 'US'), { ok: true, e164: '+14155550123' });
  assert.deepEqual(parseCustomerPhone('07400 123456', null), { ok: false, problem: 'needs-country-code' });
});

test('refused: not a number, not a valid one, or one that cannot take a text', () => {
  for (const raw of [
    '',
    '   ',
    'call me',
    '+',
    '+44',
    '+44\u00a07400',
    '+99\u00a0123\u00a0456\u00a0789',
    '+44\u00a07400\u00a0123456\u00a0999',
    `+${'4'.repeat(60)}`,
  ]) {
    assert.deepEqual(parseCustomerPhone(raw, null), { ok: false, problem: 'invalid' }, raw);
  }
  assert.deepEqual(parseCustomerPhone('+44\u00a020\u00a07946\u00a00958', null), { ok: false, problem: 'not-mobile' }, 'a landline');
  assert.deepEqual(parseCustomerPhone('+44\u00a0909\u00a0879\u00a00000', null), { ok: false, problem: 'not-mobile' }, 'premium rate');
  assert.deepEqual(parseCustomerPhone('0800 123 4567', 'GB'), { ok: false, problem: 'not-mobile' }, 'toll free');
});

test("shown back masked: the country code and the last three digits, in the country's grouping", () => {
  assert.equal(maskPhone('+447400123456'), '+44\u00a0••••\u00a0•••456');
  assert.equal(maskPhone('+14155550123'), '+1\u00a0•••\u00a0•••\u00a0•123');
  assert.equal(maskPhone('+33612345678'), '+33\u00a0•\u00a0••\u00a0••\u00a0•6\u00a078');
  for (const [e164, code] of [
    ['+447400123456', '44'],
    ['+14155550123', '1'],
    ['+33612345678', '33'],
    ['+4915123456789', '49'],
  ] as const) {
    assert.equal(
      maskPhone(e164).replace(/\D/g, ''),
      code + e164.slice(-3),
      `${e164}: only the country code and the last three digits show`,
    );
  }
});

test('country codes: two upper-case letters of a country with a numbering plan', () => {
  for (const ok of ['GB', 'FR', 'US', 'AE', 'DE']) assert.ok(isPhoneCountry(ok), ok);
  for (const bad of ['gb', 'XX', 'G1', 'GBR', '', 'UK']) assert.ok(!isPhoneCountry(bad), bad);
});

test('asked for only where a branch wants it, has a paid channel (SMS, WhatsApp) on, its plan includes SMS, and a text can be sent', () => {
  const on = withDefaults({ customer_page: { phone_entry: true } as never });
  const facts = (over: Partial<PhoneEntryFacts>): PhoneEntryFacts => ({
    settings: on,
    plan: 'business',
    livemode: true,
    configured: () => true,
    ...over,
  });
  assert.equal(phoneEntryOffered(facts({})), true);
  assert.equal(withDefaults({}).customer_page.phone_entry, false, 'off by default');
  assert.equal(phoneEntryOffered(facts({ settings: withDefaults({}) })), false);
  assert.equal(phoneEntryOffered(facts({ settings: { ...on, sms_enabled: false } })), false);
  assert.equal(phoneEntryOffered(facts({ settings: { ...on, sms_enabled: false, whatsapp_enabled: true } })), true, 'WhatsApp is on');
  assert.equal(phoneEntryOffered(facts({ plan: 'pro' })), false);
  assert.equal(phoneEntryOffered(facts({ plan: 'free' })), false);
  assert.equal(phoneEntryOffered(facts({ configured: () => false })), false, 'live mode without a provider would never send');
  const whatsappOnly = { ...on, sms_enabled: false, whatsapp_enabled: true };
  assert.equal(
    phoneEntryOffered(facts({ settings: whatsappOnly, configured: (c) => c === 'whatsapp' })),
    true,
    "WhatsApp's sender without SMS's",
  );
  assert.equal(phoneEntryOffered(facts({ settings: whatsappOnly, configured: (c) => c === 'sms' })), false, 'SMS configured but off');
  assert.equal(phoneEntryOffered(facts({ livemode: false, configured: () => false })), true, 'test mode simulates the text');
});
