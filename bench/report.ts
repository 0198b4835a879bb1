import type { Measure } from './load.js';

/** One line of the results: a system under one load. */
export interface Row {
  scenario: string;
  /** What answered: the service, or a reference. */
  system: string;
  connections: number | null;
  /** Chunks in the queried store, for the query scenarios. */
  corpus?: number;
  filtered?: boolean;
  unit: 'req/s' | 'pages/s';
  throughput: number | null;
  p50?: number;
  p90?: number;
  p99?: number;
  /** Peak resident memory of the answering process during the scenario, in MB. */
  peakRssMb: number | null;
  /** Why a row has no figures. */
  note?: string;
}

export function measuredRow(base: Omit<Row, 'unit' | 'throughput' | 'p50' | 'p90' | 'p99' | 'peakRssMb'>, measure: Measure, rssBytes: number): Row {
  return { ...base, unit: 'req/s', throughput: measure.rps, p50: measure.p50, p90: measure.p90, p99: measure.p99, peakRssMb: rssBytes / 2 ** 20 };
}

const fixed = (value: number | null | undefined, digits = 1): string => (value === null || value === undefined ? '' : value.toFixed(digits));
/** The row of the service's ingestion code (bench/main.ts). */
export const INGESTION_SYSTEM = 'service ingestion code';
export const DIRECT = 'direct Weaviate (weaviate-client)';
/** A hybrid query's other reference: the question embedded by the embeddings server, then sent straight to Weaviate. */
export const DIRECT_EMBEDDED = 'embeddings server, then direct Weaviate';
/** The service asked questions it has not seen, so each pays its embeddings call (hybrid rows). */
export const SERVICE_NEW_QUESTIONS = 'service, each question new';
const HEADERS = ['scenario', 'system', 'conns', 'throughput', 'p50 ms', 'p90 ms', 'p99 ms', 'peak RSS MB'];

function cells(row: Row): string[] {
  if (row.note) return [row.scenario, row.system, String(row.connections ?? ''), row.note, '', '', '', ''];
  return [
    row.scenario,
    row.system,
    String(row.connections ?? ''),
    `${fixed(row.throughput)} ${row.unit}`,
    fixed(row.p50),
    fixed(row.p90),
    fixed(row.p99),
    fixed(row.peakRssMb, 0),
  ];
}

export function textTable(rows: Row[]): string {
  const all = [HEADERS, ...rows.map(cells)];
  const widths = HEADERS.map((_, i) => Math.max(...all.map((line) => line[i]!.length)));
  return all.map((line) => line.map((cell, i) => cell.padEnd(widths[i]!)).join('  ').trimEnd()).join('\n');
}

export function markdown(rows: Row[], about: string[]): string {
  const line = (values: string[]) => `| ${values.join(' | ')} |`;
  const goals = targets(rows);
  return [
    '# Benchmark results',
    '',
    ...about.map((a) => `- ${a}`),
    '',
    line(HEADERS),
    line(HEADERS.map(() => '---')),
    ...rows.map((row) => line(cells(row))),
    '',
    ...(goals.length ? ['## Targets (issue 12), each a ratio within this run', '', ...goals.map((g) => `- ${g}`), ''] : []),
    '![query p50 latency against corpus size](latest.svg)',
    '',
  ].join('\n');
}

const COLOURS = ['#1f77b4', '#ff7f0e', '#2ca02c', '#d62728', '#9467bd', '#8c564b', '#e377c2', '#7f7f7f'];
const escape = (s: string) => s.replace(/&/g, '&amp;').replace(/</g, '&lt;');

/** A line chart of BM25 query p50 against corpus size (log scale), one line per system, filter and connection count (hybrid is measured on one size only). */
export function latencyChart(rows: Row[]): string {
  const query = rows.filter((r) => r.corpus !== undefined && r.p50 !== undefined && r.scenario.startsWith('query BM25'));
  const sizes = [...new Set(query.map((r) => r.corpus!))].sort((a, b) => a - b);
  const series = new Map<string, Row[]>();
  for (const row of query) {
    const name = `${row.system}, ${row.filtered ? 'filter' : 'no filter'}, ${row.connections} conn`;
    series.set(name, [...(series.get(name) ?? []), row]);
  }
  const [width, height, left, right, top, bottom] = [760, 420, 60, 250, 30, 50];
  const maxY = Math.max(1, ...query.map((r) => r.p50!)) * 1.1;
  const x = (size: number) => left + (sizes.length < 2 ? 0 : (sizes.indexOf(size) / (sizes.length - 1)) * (width - left - right));
  const y = (ms: number) => height - bottom - (ms / maxY) * (height - top - bottom);
  const parts = [
    `<svg xmlns="http://www.w3.org/2000/svg" width="${width}" height="${height}" font-family="sans-serif" font-size="12">`,
    `<rect width="100%" height="100%" fill="white"/>`,
    `<text x="${left}" y="18" font-size="14">Query p50 latency (ms) against corpus size (chunks)</text>`,
    `<line x1="${left}" y1="${height - bottom}" x2="${width - right}" y2="${height - bottom}" stroke="black"/>`,
    `<line x1="${left}" y1="${top}" x2="${left}" y2="${height - bottom}" stroke="black"/>`,
  ];
  for (let i = 0; i <= 4; i++) {
    const ms = (maxY * i) / 4;
    parts.push(`<text x="${left - 6}" y="${y(ms) + 4}" text-anchor="end">${ms.toFixed(ms < 10 ? 1 : 0)}</text>`);
    parts.push(`<line x1="${left}" y1="${y(ms)}" x2="${width - right}" y2="${y(ms)}" stroke="#ddd"/>`);
  }
  for (const size of sizes) parts.push(`<text x="${x(size)}" y="${height - bottom + 18}" text-anchor="middle">${size.toLocaleString('en')}</text>`);
  [...series.entries()].forEach(([name, points], i) => {
    const colour = COLOURS[i % COLOURS.length]!;
    const path = points.map((p) => `${x(p.corpus!)},${y(p.p50!)}`).join(' ');
    parts.push(`<polyline points="${path}" fill="none" stroke="${colour}" stroke-width="2"/>`);
    for (const p of points) parts.push(`<circle cx="${x(p.corpus!)}" cy="${y(p.p50!)}" r="3" fill="${colour}"/>`);
    parts.push(`<rect x="${width - right + 15}" y="${top + i * 20}" width="12" height="12" fill="${colour}"/>`);
    parts.push(`<text x="${width - right + 32}" y="${top + i * 20 + 10}">${escape(name)}</text>`);
  });
  parts.push('</svg>', '');
  return parts.join('\n');
}

/**
 * The targets, each a ratio within this run, as lines for the report; a target whose rows
 * were not measured (a smoke run has no 100k corpus) is left out.
 */
export function targets(rows: Row[]): string[] {
  const find = (test: (r: Row) => boolean) => rows.find((r) => !r.note && test(r));
  const lines: string[] = [];
  const verdict = (ok: boolean) => (ok ? 'met' : 'missed');
  const floor = find((r) => r.system.startsWith('durable floor') && r.connections === 10);
  for (const path of ['plans', 'usage']) {
    const ours = find((r) => r.system === `service GET /${path}` && r.connections === 10);
    if (ours && floor) {
      const ratio = ours.throughput! / floor.throughput!;
      lines.push(`GET /${path} at 10 connections: ${ratio.toFixed(2)} of the durable floor's throughput (target at least 0.8: ${verdict(ratio >= 0.8)})`);
    }
  }
  const one = find((r) => r.system === 'service GET /plans' && r.connections === 10);
  const two = find((r) => r.system === 'service GET /plans, two processes');
  if (one && two) {
    lines.push(`GET /plans at 10 connections, scale out: ${two.throughput!.toFixed(0)} req/s on two processes against ${one.throughput!.toFixed(0)} on one (${(two.throughput! / one.throughput!).toFixed(2)} x)`);
  }
  const queries = rows.filter((r) => r.corpus !== undefined && !r.note);
  for (const ours of queries.filter((r) => r.system === 'service')) {
    const reference = (system: string) => queries.find((r) => r.system === system && r.scenario === ours.scenario && r.connections === ours.connections);
    const direct = reference(DIRECT);
    if (!direct) continue;
    const limit = ours.connections === 1 ? 1.5 * direct.p50! + 3 : 2 * direct.p50!;
    const rule = ours.connections === 1 ? '1.5 x direct + 3 ms' : '2 x direct';
    lines.push(
      `${ours.scenario}, ${ours.connections} conn: p50 ${ours.p50!.toFixed(1)} ms against direct ${direct.p50!.toFixed(1)} ms (target at most ${rule} = ${limit.toFixed(1)} ms: ${verdict(ours.p50! <= limit)})`,
    );
    const [fresh, embedded] = [reference(SERVICE_NEW_QUESTIONS), reference(DIRECT_EMBEDDED)];
    if (fresh && embedded) {
      const same = ours.connections === 1 ? 1.5 * embedded.p50! + 3 : 2 * embedded.p50!;
      lines.push(
        `  each question new: p50 ${fresh.p50!.toFixed(1)} ms against the question embedded, then direct: ${embedded.p50!.toFixed(1)} ms (the same rule: at most ${same.toFixed(1)} ms, ${fresh.p50! <= same ? 'within' : 'over'} it)`,
      );
    }
  }
  const sizes = [...new Set(queries.map((r) => r.corpus!))].sort((a, b) => a - b);
  const [smallest, largest] = [sizes[0], sizes.at(-1)];
  if (smallest !== undefined && largest !== undefined && largest >= 100 * smallest) {
    for (const filtered of [false, true]) {
      const at = (size: number) => find((r) => r.system === 'service' && r.corpus === size && r.filtered === filtered && r.connections === 1);
      const [small, large] = [at(smallest), at(largest)];
      if (small && large) {
        const ratio = large.p50! / small.p50!;
        lines.push(`service p50 at ${largest} chunks / at ${smallest}${filtered ? ', filters' : ''}, 1 conn: ${ratio.toFixed(2)} (target at most 1.5: ${verdict(ratio <= 1.5)})`);
      }
    }
  }
  const ingest = find((r) => r.system === INGESTION_SYSTEM);
  const raw = find((r) => r.system === 'raw weaviate-client import');
  if (ingest && raw) {
    const ratio = ingest.throughput! / raw.throughput!;
    lines.push(`ingestion: ${ratio.toFixed(2)} of the raw import's pages per second (target at least 0.7: ${verdict(ratio >= 0.7)})`);
  }
  // the server under load: the ingestion runs the same code in a process of its own
  const service = rows.filter((r) => r.system.startsWith('service') && r.system !== INGESTION_SYSTEM && r.peakRssMb !== null);
  if (service.length) {
    const peak = Math.max(...service.map((r) => r.peakRssMb!));
    lines.push(`service peak RSS under load: ${peak.toFixed(0)} MB (target below 250 MB: ${verdict(peak < 250)}; the 10-minute soak is a run of its own: npm run bench -- --soak)`);
  }
  return lines;
}
