// Calendar boundaries in UTC: the day resets at 00:00:00 UTC, the month (and the billing
// period) on the 1st at 00:00:00 UTC.

export function startOfUtcDay(t: Date): Date {
  return new Date(Date.UTC(t.getUTCFullYear(), t.getUTCMonth(), t.getUTCDate()));
}

export function startOfNextUtcDay(t: Date): Date {
  return new Date(Date.UTC(t.getUTCFullYear(), t.getUTCMonth(), t.getUTCDate() + 1));
}

export function startOfUtcMonth(t: Date): Date {
  return new Date(Date.UTC(t.getUTCFullYear(), t.getUTCMonth(), 1));
}

export function startOfNextUtcMonth(t: Date): Date {
  return new Date(Date.UTC(t.getUTCFullYear(), t.getUTCMonth() + 1, 1));
}

/** `YYYY-MM-DD` of the UTC calendar date. */
export function utcDate(t: Date): string {
  return t.toISOString().slice(0, 10);
}
