// Time is injected so that tests can move it (sliding windows, day and month resets).
export interface Clock {
  now(): Date;
}

export const systemClock: Clock = { now: () => new Date() };
