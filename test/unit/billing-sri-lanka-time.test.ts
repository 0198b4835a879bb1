import { describe, expect, test } from '@jest/globals';
import { monthAfter, sriLankaTime } from '../../src/domain/billing/sri-lanka-time.js';

describe("PayHere's Sri Lankan dates", () => {
  test('a wall-clock time is read as UTC+05:30; anything else is no time', () => {
    expect(sriLankaTime('2026-01-16 12:28:28')).toEqual(new Date('2026-01-16T06:58:28Z'));
    expect(sriLankaTime('2026-01-01 03:00:00')).toEqual(new Date('2025-12-31T21:30:00Z'));
    for (const bad of [undefined, '', '2026-01-16T12:28:28', '2026-13-40 12:00:00', '2026-01-16 12:28']) expect(sriLankaTime(bad)).toBeNull();
  });

  test("a month runs to the same time on the same day of Sri Lanka's next month, or its last day", () => {
    expect(monthAfter(new Date('2026-03-01T02:00:00+05:30'))).toEqual(new Date('2026-04-01T02:00:00+05:30'));
    // 31 January 01:30 in Sri Lanka (still the 30th in UTC) ends on 28 February 01:30 there
    expect(monthAfter(new Date('2026-01-30T20:00:00Z'))).toEqual(new Date('2026-02-27T20:00:00Z'));
    // 1 February 01:30 in Sri Lanka is 31 January in UTC: the month is Sri Lanka's, to 1 March
    expect(monthAfter(new Date('2026-01-31T20:00:00Z'))).toEqual(new Date('2026-02-28T20:00:00Z'));
    expect(monthAfter(new Date('2028-01-31T12:00:00+05:30'))).toEqual(new Date('2028-02-29T12:00:00+05:30'));
    expect(monthAfter(new Date('2026-12-15T23:59:59+05:30'))).toEqual(new Date('2027-01-15T23:59:59+05:30'));
  });
});
