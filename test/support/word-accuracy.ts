import { normalise } from '../../src/domain/text/normalise.js';

const words = (text: string) => normalise(text).split(/\s+/).filter((w) => w !== '');

/**
 * The share of words a reader got exactly right: the longest common subsequence of the expected
 * and the read words over the longer of the two, so that a word broken in two counts against the
 * reader twice and a dropped word once.
 */
export function wordMatches(expected: string, read: string): { matched: number; total: number } {
  const a = words(expected);
  const b = words(read);
  let previous = new Array<number>(b.length + 1).fill(0);
  for (const word of a) {
    const row = [0];
    for (let j = 0; j < b.length; j++) row.push(word === b[j] ? previous[j]! + 1 : Math.max(previous[j + 1]!, row[j]!));
    previous = row;
  }
  return { matched: previous[b.length]!, total: Math.max(a.length, b.length) };
}

/** wordMatches summed over pages: pages[i] is read as expected[i]. */
export function wordAccuracy(expected: string[], read: string[]): number {
  let matched = 0;
  let total = 0;
  expected.forEach((page, i) => {
    const m = wordMatches(page, read[i] ?? '');
    matched += m.matched;
    total += m.total;
  });
  // pages the reader invented count against it too
  for (const extra of read.slice(expected.length)) total += wordMatches('', extra).total;
  return total === 0 ? 1 : matched / total;
}
