import { describe, expect, test } from '@jest/globals';
import { startOfNextUtcDay, startOfNextUtcMonth, startOfUtcDay, startOfUtcMonth, utcDate } from '../../src/domain/limits/periods.js';
import { decide, secondsUntil, windowHeaders } from '../../src/domain/limits/window.js';

const d = (s: string) => new Date(s);

describe('UTC period boundaries', () => {
  test.each([
    ['2026-03-10T12:34:56.789Z', '2026-03-10T00:00:00.000Z', '2026-03-11T00:00:00.000Z', '2026-03-01T00:00:00.000Z', '2026-04-01T00:00:00.000Z'],
    ['2026-12-31T23:59:59.999Z', '2026-12-31T00:00:00.000Z', '2027-01-01T00:00:00.000Z', '2026-12-01T00:00:00.000Z', '2027-01-01T00:00:00.000Z'],
    ['2028-02-28T23:00:00.000Z', '2028-02-28T00:00:00.000Z', '2028-02-29T00:00:00.000Z', '2028-02-01T00:00:00.000Z', '2028-03-01T00:00:00.000Z'],
    ['2026-05-01T00:00:00.000Z', '2026-05-01T00:00:00.000Z', '2026-05-02T00:00:00.000Z', '2026-05-01T00:00:00.000Z', '2026-06-01T00:00:00.000Z'],
  ])('at %s', (now, day, nextDay, month, nextMonth) => {
    expect(startOfUtcDay(d(now)).toISOString()).toBe(day);
    expect(startOfNextUtcDay(d(now)).toISOString()).toBe(nextDay);
    expect(startOfUtcMonth(d(now)).toISOString()).toBe(month);
    expect(startOfNextUtcMonth(d(now)).toISOString()).toBe(nextMonth);
  });

  test('dates are UTC calendar dates, whatever the local time zone would say', () => {
    expect(utcDate(d('2026-07-01T23:30:00-05:00'))).toBe('2026-07-02');
  });
});

describe('limit decisions', () => {
  const limits = { perMinute: 10, perDay: 100, perMonth: 1000 };
  const now = d('2026-03-10T12:00:30.000Z');

  test('admits while every limit has room', () => {
    expect(decide(limits, { inWindow: 9, oldestInWindow: d('2026-03-10T11:59:40Z'), limitThNewest: d('2026-03-10T11:59:40Z'), today: 99, thisMonth: 999 }, now)).toEqual({ admitted: true });
  });

  test('the minute limit waits for the oldest request to leave the window', () => {
    expect(decide(limits, { inWindow: 10, oldestInWindow: d('2026-03-10T11:59:40.000Z'), limitThNewest: d('2026-03-10T11:59:40.000Z'), today: 10, thisMonth: 10 }, now)).toEqual({
      admitted: false,
      kind: 'minute',
      retryAfterSeconds: 10,
    });
  });

  test('a window holding more than the limit (after a downgrade) waits for the limit-th newest request, not the oldest', () => {
    const counts = { inWindow: 10, oldestInWindow: d('2026-03-10T11:59:31.000Z'), limitThNewest: d('2026-03-10T11:59:50.000Z'), today: 20, thisMonth: 20 };
    expect(decide(limits, counts, now)).toEqual({ admitted: false, kind: 'minute', retryAfterSeconds: 20 });
  });

  test('the day limit waits for 00:00 UTC', () => {
    expect(decide(limits, { inWindow: 0, oldestInWindow: null, limitThNewest: null, today: 100, thisMonth: 100 }, now)).toEqual({
      admitted: false,
      kind: 'day',
      retryAfterSeconds: 12 * 3600 - 30,
    });
  });

  test('the month is reported first when it is exhausted', () => {
    expect(decide(limits, { inWindow: 10, oldestInWindow: now, limitThNewest: now, today: 100, thisMonth: 1000 }, now)).toMatchObject({ kind: 'month' });
  });

  test('Retry-After is never below one second', () => {
    expect(secondsUntil(d('2026-01-01T00:00:00.100Z'), d('2026-01-01T00:00:00.000Z'))).toBe(1);
    expect(secondsUntil(d('2026-01-01T00:00:00.000Z'), d('2026-01-01T00:00:01.000Z'))).toBe(1);
    expect(secondsUntil(d('2026-01-01T00:00:02.001Z'), d('2026-01-01T00:00:00.000Z'))).toBe(3);
  });

  test('window headers: remaining never negative, reset when the oldest leaves', () => {
    expect(windowHeaders(10, 3, d('2026-03-10T12:00:00.000Z'), now)).toEqual({ limit: 10, remaining: 7, reset: Date.parse('2026-03-10T12:01:00Z') / 1000 });
    expect(windowHeaders(10, 12, d('2026-03-10T12:00:00.500Z'), now).remaining).toBe(0);
    expect(windowHeaders(10, 12, d('2026-03-10T12:00:00.500Z'), now).reset).toBe(Date.parse('2026-03-10T12:01:01Z') / 1000);
    expect(windowHeaders(10, 0, null, now).reset).toBe(Math.ceil(Date.parse('2026-03-10T12:00:30Z') / 1000));
  });
});
