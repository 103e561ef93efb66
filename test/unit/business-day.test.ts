import { describe, it } from 'node:test';
import assert from 'node:assert/strict';
import { businessDay } from '../../src/domain/business-day.ts';
import { isValidTimeZone } from '../../src/domain/local-time.ts';

const utc = (iso: string): number => Date.parse(iso);

describe('isValidTimeZone', () => {
  it('accepts IANA names, including UTC and any letter case', () => {
    for (const tz of ['UTC', 'Europe/Paris', 'Pacific/Auckland', 'America/Los_Angeles', 'Etc/GMT+5', 'europe/paris']) {
      assert.equal(isValidTimeZone(tz), true, tz);
    }
  });

  it('rejects empty, unknown and bare-offset zones', () => {
    for (const tz of ['', 'Mars/Base', '+01:00', '-0500', 'Europe/Paris ']) {
      assert.equal(isValidTimeZone(tz), false, JSON.stringify(tz));
    }
  });
});

describe('businessDay', () => {
  it('turns over at local midnight in Paris, summer (UTC+2) and winter (UTC+1)', () => {
    assert.equal(businessDay(utc('2024-07-01T21:59:59.999Z'), 'Europe/Paris'), '2024-07-01');
    assert.equal(businessDay(utc('2024-07-01T22:00:00.000Z'), 'Europe/Paris'), '2024-07-02');
    assert.equal(businessDay(utc('2024-01-15T22:59:59.999Z'), 'Europe/Paris'), '2024-01-15');
    assert.equal(businessDay(utc('2024-01-15T23:00:00.000Z'), 'Europe/Paris'), '2024-01-16');
  });

  it('is a day ahead of UTC in Auckland', () => {
    // January is summer in New Zealand: NZDT, UTC+13.
    assert.equal(businessDay(utc('2024-01-15T10:59:59.999Z'), 'Pacific/Auckland'), '2024-01-15');
    assert.equal(businessDay(utc('2024-01-15T11:00:00.000Z'), 'Pacific/Auckland'), '2024-01-16');
  });

  it('follows the offset change across DST in Los Angeles', () => {
    // PST (UTC-8) until 2024-03-10 10:00Z, PDT (UTC-7) after: midnight moves from 08:00Z to 07:00Z.
    assert.equal(businessDay(utc('2024-03-10T07:59:59.999Z'), 'America/Los_Angeles'), '2024-03-09');
    assert.equal(businessDay(utc('2024-03-10T08:00:00.000Z'), 'America/Los_Angeles'), '2024-03-10');
    assert.equal(businessDay(utc('2024-03-11T06:59:59.999Z'), 'America/Los_Angeles'), '2024-03-10');
    assert.equal(businessDay(utc('2024-03-11T07:00:00.000Z'), 'America/Los_Angeles'), '2024-03-11');
  });

  it('is the UTC date in UTC', () => {
    assert.equal(businessDay(utc('2024-02-29T23:59:59.999Z'), 'UTC'), '2024-02-29');
    assert.equal(businessDay(utc('2024-03-01T00:00:00.000Z'), 'UTC'), '2024-03-01');
  });

  it('gives the same day whatever the zone name spelling', () => {
    const t = utc('2024-07-01T22:00:00.000Z');
    assert.equal(businessDay(t, 'europe/paris'), businessDay(t, 'Europe/Paris'));
  });

  it('throws for an invalid zone', () => {
    assert.throws(() => businessDay(0, 'Mars/Base'), RangeError);
  });
});
