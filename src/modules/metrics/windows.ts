// The time windows the volume figures compare. Each pair is back to back and never overlaps (the
// original's "previous hour" overlapped its "current hour"), and every window ends at `now`, so
// a figure means the same whenever it is asked for.
import type { Window } from './types.js';

const HOUR_MS = 3_600_000;
const DAY_MS = 24 * HOUR_MS;

export interface VolumeWindows {
  hour: Window;
  previousHour: Window;
  day: Window;
  previousDay: Window;
  week: Window;
  previousWeek: Window;
  /** The query period (query_time_period days) and the period before it. */
  period: Window;
  previousPeriod: Window;
}

/** The `length` ms ending `endsAgo` ms before `now`. */
function ending(now: number, length: number, endsAgo = 0): Window {
  return { from: new Date(now - endsAgo - length), to: new Date(now - endsAgo) };
}

export function periodWindow(now: Date, days: number): Window {
  return ending(now.getTime(), days * DAY_MS);
}

export function volumeWindows(now: Date, periodDays: number): VolumeWindows {
  const t = now.getTime();
  return {
    hour: ending(t, HOUR_MS),
    previousHour: ending(t, HOUR_MS, HOUR_MS),
    day: ending(t, DAY_MS),
    previousDay: ending(t, DAY_MS, DAY_MS),
    week: ending(t, 7 * DAY_MS),
    previousWeek: ending(t, 7 * DAY_MS, 7 * DAY_MS),
    period: ending(t, periodDays * DAY_MS),
    previousPeriod: ending(t, periodDays * DAY_MS, periodDays * DAY_MS),
  };
}
