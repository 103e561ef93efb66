// The branch's calendar for insights: local dates and hours across daylight-saving changes and
// half-hour zones, where a day starts, and the fast calendar a rebuild uses agreeing with Intl.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { addDays, daysBetween, isDate, LocalCalendar, localDateTime, localHour, startOfDay, weekday } from '../../src/domain/local-time.ts';

const at = (iso: string) => Date.parse(iso);

test('local date and hour follow the zone at that instant, daylight saving included', () => {
  assert.deepEqual(localHour(at('2026-10-25T00:30:00Z'), 'Europe/Paris'), { day: '2026-10-25', hour: 2 }); // 02:30 CEST
  assert.deepEqual(localHour(at('2026-10-25T01:30:00Z'), 'Europe/Paris'), { day: '2026-10-25', hour: 2 }); // 02:30 CET, again
  assert.deepEqual(localHour(at('2026-03-29T01:00:00Z'), 'Europe/Paris'), { day: '2026-03-29', hour: 3 }); // 2 am never happens
  assert.deepEqual(localHour(at('2026-11-18T18:40:00Z'), 'Asia/Kolkata'), { day: '2026-11-19', hour: 0 });
  assert.deepEqual(localHour(at('2026-11-18T23:59:59Z'), 'UTC'), { day: '2026-11-18', hour: 23 });
  assert.deepEqual(localHour(at('2026-11-18T10:00:00Z'), 'Pacific/Kiritimati'), { day: '2026-11-19', hour: 0 }); // UTC+14
  assert.throws(() => localHour(0, '+01:00'), RangeError);
  assert.throws(() => localHour(0, 'Mars/Olympus'), RangeError);
});

test('a day starts at local midnight, or at the first minute that exists', () => {
  assert.equal(startOfDay('2026-11-18', 'Europe/Paris'), at('2026-11-17T23:00:00Z'));
  assert.equal(startOfDay('2026-10-25', 'Europe/Paris'), at('2026-10-24T22:00:00Z'));
  assert.equal(startOfDay('2026-10-26', 'Europe/Paris'), at('2026-10-25T23:00:00Z'), 'the 25th lasted 25 hours');
  assert.equal(startOfDay('2026-03-30', 'Europe/Paris') - startOfDay('2026-03-29', 'Europe/Paris'), 23 * 3600_000);
  assert.equal(startOfDay('2026-11-19', 'Asia/Kolkata'), at('2026-11-18T18:30:00Z'));
  // Santiago moves its clocks at midnight: on 6 September 2026, 00:00 does not exist and the day starts at 01:00.
  assert.equal(startOfDay('2026-09-06', 'America/Santiago'), at('2026-09-06T04:00:00Z'));
  assert.deepEqual(localHour(startOfDay('2026-09-06', 'America/Santiago'), 'America/Santiago'), { day: '2026-09-06', hour: 1 });
});

test('dates: validity, arithmetic and ISO weekdays', () => {
  assert.ok(isDate('2028-02-29'));
  assert.ok(!isDate('2026-02-29'));
  assert.ok(!isDate('2026-1-01'));
  assert.equal(addDays('2026-12-31', 1), '2027-01-01');
  assert.equal(addDays('2026-03-01', -1), '2026-02-28');
  assert.equal(daysBetween('2026-11-16', '2026-11-22'), 7);
  assert.deepEqual(['2026-11-16', '2026-11-22'].map(weekday), [1, 7]);
  assert.equal(localDateTime(at('2026-11-21T09:00:05Z'), 'Europe/Paris'), '2026-11-21 10:00:05');
  assert.equal(localDateTime(at('2026-11-21T23:00:00Z'), 'Europe/Paris'), '2026-11-22 00:00:00');
});

test("the rebuild's calendar places every minute of a year as Intl does, in zones with odd changes", () => {
  for (const zone of ['Europe/Paris', 'America/Santiago', 'Australia/Lord_Howe', 'Asia/Kolkata', 'America/St_Johns', 'UTC']) {
    const calendar = new LocalCalendar(zone);
    const wrong: string[] = [];
    for (let ms = at('2026-01-01T00:00:00Z'); ms < at('2027-01-01T00:00:00Z'); ms += 7 * 60_000) {
      const fast = calendar.hourOf(ms);
      const slow = localHour(ms, zone);
      if (fast.day !== slow.day || fast.hour !== slow.hour)
        wrong.push(`${new Date(ms).toISOString()}: ${JSON.stringify(fast)} vs ${JSON.stringify(slow)}`);
    }
    assert.deepEqual(wrong.slice(0, 5), [], zone);
  }
});
