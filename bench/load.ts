import autocannon from 'autocannon';

/** What one scenario measured: throughput and latency percentiles (ms), and what went wrong. */
export interface Measure {
  requests: number;
  rps: number;
  p50: number;
  p90: number;
  p99: number;
  /** Non-2xx answers, transport errors and timeouts; a run with any fails the benchmark. */
  failures: number;
  firstFailure?: string;
}

export interface HttpLoad {
  url: string;
  connections: number;
  seconds: number;
  method?: 'GET' | 'POST';
  /** Request bodies (JSON), sent in turn. */
  bodies?: string[];
  /** Each request carries the next of these keys in `X-API-Key`, in turn. */
  keys: string[];
}

/** Closed-loop HTTP load from autocannon for a bounded time. */
export async function httpLoad(load: HttpLoad): Promise<Measure> {
  let turn = 0;
  return runAutocannon({
    url: load.url,
    connections: load.connections,
    duration: load.seconds,
    method: load.method ?? 'GET',
    headers: load.bodies ? { 'content-type': 'application/json' } : {},
    requests: [
      {
        setupRequest: (request) => {
          const i = turn++;
          const headers = { ...request.headers, 'x-api-key': load.keys[i % load.keys.length]! };
          return load.bodies ? { ...request, headers, body: load.bodies[i % load.bodies.length]! } : { ...request, headers };
        },
      },
    ],
  });
}

/**
 * Runs autocannon and measures its answers' latency percentiles at the resolution it times them
 * (fractions of a millisecond), as callLoad does for the direct references: its own histogram
 * keeps whole milliseconds, which at 4-7 ms moves a ratio between two rows by up to a quarter.
 */
export async function runAutocannon(options: autocannon.Options): Promise<Measure> {
  const latencies: number[] = [];
  const result = await new Promise<autocannon.Result>((resolve, reject) => {
    const instance = autocannon(options, (error: Error | null, finished: autocannon.Result) => (error ? reject(error) : resolve(finished)));
    // the answers autocannon's own percentiles count: 2xx only
    instance.on('response', (_client, status, _bytes, ms) => {
      if (status >= 200 && status < 300) latencies.push(ms);
    });
  });
  return measured(result, latencies);
}

/**
 * Loads that ran side by side (one per server process) as one: throughput and counts add up;
 * the latency percentiles are the slowest process's, as no merged histogram is at hand.
 */
export function sideBySide(measures: Measure[]): Measure {
  const failed = measures.find((m) => m.failures > 0);
  return {
    requests: measures.reduce((s, m) => s + m.requests, 0),
    rps: measures.reduce((s, m) => s + m.rps, 0),
    p50: Math.max(...measures.map((m) => m.p50)),
    p90: Math.max(...measures.map((m) => m.p90)),
    p99: Math.max(...measures.map((m) => m.p99)),
    failures: measures.reduce((s, m) => s + m.failures, 0),
    firstFailure: failed?.firstFailure,
  };
}

/** The value at or below which `fraction` of the sorted samples lie (nearest rank). */
export function percentile(sorted: number[], fraction: number): number {
  if (sorted.length === 0) return 0;
  return sorted[Math.min(sorted.length - 1, Math.ceil(fraction * sorted.length) - 1)]!;
}

/** The p50, p90 and p99 of a run's latencies (in any order). */
function latencyPercentiles(latencies: number[]): Pick<Measure, 'p50' | 'p90' | 'p99'> {
  const sorted = latencies.toSorted((a, b) => a - b);
  return { p50: percentile(sorted, 0.5), p90: percentile(sorted, 0.9), p99: percentile(sorted, 0.99) };
}

/**
 * Closed-loop load on a function (a direct client call): `connections` callers, each calling
 * again as soon as its call returns, for a bounded time, as autocannon does over HTTP.
 */
export async function callLoad(connections: number, seconds: number, call: (i: number) => Promise<unknown>): Promise<Measure> {
  const latencies: number[] = [];
  let failures = 0;
  let firstFailure: string | undefined;
  let started = 0;
  const start = performance.now();
  const end = start + seconds * 1000;
  await Promise.all(
    Array.from({ length: connections }, async () => {
      while (performance.now() < end) {
        const t0 = performance.now();
        try {
          await call(started++);
          latencies.push(performance.now() - t0);
        } catch (error) {
          failures++;
          firstFailure ??= (error as Error).message;
        }
      }
    }),
  );
  const elapsed = (performance.now() - start) / 1000;
  return {
    requests: latencies.length,
    rps: latencies.length / elapsed,
    ...latencyPercentiles(latencies),
    failures,
    firstFailure,
  };
}

/** One load run's figures, with the percentiles of its 2xx answers' latencies, and its failures said in a line (non-2xx answers by status, errors, timeouts). */
function measured(result: autocannon.Result, latencies: number[]): Measure {
  const failures = result.non2xx + result.errors + result.timeouts;
  const firstFailure = failures
    ? `${result.non2xx} non-2xx answers (${Object.entries(result.statusCodeStats ?? {})
        .map(([code, stat]) => `${code}: ${stat.count}`)
        .join(', ')}), ${result.errors} errors, ${result.timeouts} timeouts`
    : undefined;
  return {
    requests: result.requests.total,
    rps: result.requests.average,
    ...latencyPercentiles(latencies),
    failures,
    firstFailure,
  };
}
