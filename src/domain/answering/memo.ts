/**
 * Results kept for recent keys, at most `size` of them: all are dropped when full, which costs
 * less than tracking their use.
 */
export class RecentResults<T> {
  private readonly results = new Map<string, T>();

  constructor(private readonly size: number) {}

  get(key: string): T | undefined {
    return this.results.get(key);
  }

  set(key: string, result: T): void {
    if (this.results.size >= this.size) this.results.clear();
    this.results.set(key, result);
  }
}

/**
 * `compute` remembering its results for recent inputs: for pure functions of text that queries
 * call again and again with the same words and retrieved passages. At most `size` results are
 * kept, and inputs longer than `maxLength` are computed every time, so memory stays bounded
 * (about size x maxLength).
 */
export function memoised<T>(compute: (input: string) => T, { size, maxLength }: { size: number; maxLength: number }): (input: string) => T {
  const results = new RecentResults<T>(size);
  return (input) => {
    if (input.length > maxLength) return compute(input);
    let result = results.get(input);
    if (result === undefined) {
      result = compute(input);
      results.set(input, result);
    }
    return result;
  };
}
