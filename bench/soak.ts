import { runAutocannon, type Measure } from './load.js';
import { rssBytes } from './processes.js';

// The soak (npm run bench -- --soak): mixed load on one service process for a long time, its
// resident memory sampled all along, to show whether memory stays flat (a leak shows as a slope).

const SAMPLE_MS = 5_000;
/** The first minute is left out of the slope: JIT, pools and caches fill then, and stay filled. */
const WARM_UP_MS = 60_000;

export interface SoakResult {
  measure: Measure;
  /** [minutes since start, RSS in MB] */
  samples: [number, number][];
  peakMb: number;
  /** Least-squares slope of RSS after the warm-up, in MB per minute. */
  slopeMbPerMinute: number;
}

/** Least-squares slope of y on x. */
export function slope(points: [number, number][]): number {
  const n = points.length;
  if (n < 2) return 0;
  const mx = points.reduce((s, [x]) => s + x, 0) / n;
  const my = points.reduce((s, [, y]) => s + y, 0) / n;
  const sxy = points.reduce((s, [x, y]) => s + (x - mx) * (y - my), 0);
  const sxx = points.reduce((s, [x]) => s + (x - mx) ** 2, 0);
  return sxx === 0 ? 0 : sxy / sxx;
}

export interface SoakLoad {
  url: string;
  pid: number;
  keys: string[];
  /** Query bodies (JSON), sent in turn between the light calls. */
  bodies: string[];
  connections: number;
  minutes: number;
}

/** GET /plans, GET /usage and POST /query in turn on every connection, for `minutes`. */
export async function soak(load: SoakLoad): Promise<SoakResult> {
  let turn = 0;
  const key = () => load.keys[turn++ % load.keys.length]!;
  const started = performance.now();
  const samples: [number, number][] = [];
  const sample = () => samples.push([(performance.now() - started) / 60_000, rssBytes(load.pid) / 2 ** 20]);
  sample();
  const timer = setInterval(sample, SAMPLE_MS);
  let measure: Measure;
  try {
    measure = await runAutocannon({
      url: load.url,
      connections: load.connections,
      duration: load.minutes * 60,
      requests: [
        { method: 'GET', path: '/api/v1/dev/plans', setupRequest: (r) => ({ ...r, headers: { ...r.headers, 'x-api-key': key() } }) },
        { method: 'GET', path: '/api/v1/dev/usage', setupRequest: (r) => ({ ...r, headers: { ...r.headers, 'x-api-key': key() } }) },
        {
          method: 'POST',
          path: '/api/v1/dev/query',
          setupRequest: (r) => ({
            ...r,
            headers: { ...r.headers, 'x-api-key': key(), 'content-type': 'application/json' },
            body: load.bodies[turn % load.bodies.length]!,
          }),
        },
      ],
    });
  } finally {
    clearInterval(timer);
  }
  sample();
  const warm = samples.filter(([minute]) => minute * 60_000 >= WARM_UP_MS);
  return {
    measure,
    samples,
    peakMb: Math.max(...samples.map(([, mb]) => mb)),
    slopeMbPerMinute: slope(warm),
  };
}

/** The soak's report in Markdown, with every sample. */
export function soakMarkdown(result: SoakResult, about: string[]): string {
  const { measure } = result;
  const first = result.samples[0]![1];
  const last = result.samples.at(-1)![1];
  return [
    '# Soak results',
    '',
    ...about.map((a) => `- ${a}`),
    '',
    `- load: GET /plans, GET /usage and POST /query (BM25, 1,000 chunks) in turn: ${measure.requests} requests, ${measure.rps.toFixed(1)} req/s, p50 ${measure.p50} ms, p99 ${measure.p99} ms, ${measure.failures} failed`,
    `- service RSS: ${first.toFixed(0)} MB at the start, ${last.toFixed(0)} MB at the end, peak ${result.peakMb.toFixed(0)} MB`,
    `- RSS slope after the first minute (least squares): ${result.slopeMbPerMinute.toFixed(2)} MB per minute`,
    '',
    '| minute | RSS MB |',
    '| --- | --- |',
    ...result.samples.map(([minute, mb]) => `| ${minute.toFixed(2)} | ${mb.toFixed(0)} |`),
    '',
  ].join('\n');
}
