/**
 * `compute` remembering its results for recent inputs: for pure functions of text that queries
 * call again and again with the same words and retrieved passages. At most `size` results are
 * kept (all are dropped when full, which costs less than tracking their use), and inputs longer
 * than `maxLength` are computed every time, so memory stays bounded (about size x maxLength).
 */
export function memoised<T>(compute: (input: string) => T, { size, maxLength }: { size: number; maxLength: number }): (input: string) => T {
  const results = new Map<string, T>();
  return (input) => {
    if (input.length > maxLength) return compute(input);
    let result = results.get(input);
    if (result === undefined) {
      result = compute(input);
      if (results.size >= size) results.clear();
      results.set(input, result);
    }
    return result;
  };
}
