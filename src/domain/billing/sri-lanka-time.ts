// Sri Lanka keeps UTC+05:30 all year. PayHere dates its payments in it and charges a month by its
// calendar, so the paid months are counted the same way.
const OFFSET_MS = 330 * 60_000;

/** A Sri Lankan wall-clock time as PayHere writes it, `2026-01-16 12:28:28`; null when it is not one. */
export function sriLankaTime(wallClock: string | undefined): Date | null {
  const match = /^(\d{4}-\d{2}-\d{2}) (\d{2}:\d{2}:\d{2})$/.exec(wallClock ?? '');
  const time = match ? new Date(Date.parse(`${match[1]}T${match[2]}Z`) - OFFSET_MS) : null;
  return time && !Number.isNaN(time.getTime()) ? time : null;
}

/** The same time a calendar month later in Sri Lanka (1 March 02:00 -> 1 April 02:00). */
export function monthAfter(date: Date): Date {
  const local = new Date(date.getTime() + OFFSET_MS);
  const day = local.getUTCDate();
  // the 31st of January is followed by the last of February, not the 3rd of March
  local.setUTCDate(1);
  local.setUTCMonth(local.getUTCMonth() + 1);
  const lastDay = new Date(Date.UTC(local.getUTCFullYear(), local.getUTCMonth() + 1, 0)).getUTCDate();
  local.setUTCDate(Math.min(day, lastDay));
  return new Date(local.getTime() - OFFSET_MS);
}
