import { describe, expect, it } from '@jest/globals';
import type { LoggedOutcome, RequestLog } from '../../src/db/request-log.js';
import { InFlightRequests } from '../../src/http/in-flight.js';

/** The requests in flight over a log that records the statements it is given. */
function inFlightOverLog() {
  const statements: Pick<LoggedOutcome, 'logId' | 'status'>[][] = [];
  const log = { writeOutcomes: (outcomes: LoggedOutcome[]) => Promise.resolve(void statements.push(outcomes.map(({ logId, status }) => ({ logId, status })))) };
  return { inFlight: new InFlightRequests(log as unknown as RequestLog), statements };
}

describe('requests in flight', () => {
  it('a cut at shutdown records the open requests as 503 and writes the outcomes still lingering', async () => {
    const { inFlight, statements } = inFlightOverLog();
    inFlight.add('1');
    inFlight.add('2');
    void inFlight.finish('1', { status: 200 });
    expect(await inFlight.cut()).toBe(1);
    expect(statements.flat()).toEqual([
      { logId: '1', status: 200 },
      { logId: '2', status: 503 },
    ]);
  });

  it('a cut with no request open still writes the outcomes answered just before', async () => {
    const { inFlight, statements } = inFlightOverLog();
    inFlight.add('1');
    void inFlight.finish('1', { status: 204 });
    expect(await inFlight.cut()).toBe(0);
    expect(statements).toEqual([[{ logId: '1', status: 204 }]]);
  });
});
