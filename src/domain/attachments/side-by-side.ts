/**
 * `each` of `items` side by side, all or none: the first failure, or `signal` (the request gone),
 * fires the signal the others were given, so their downloads and queued reading stop, since the
 * request fails anyway. Fails with the first error, or with the request's reason when it went away.
 */
export async function sideBySide<T, R>(items: T[], each: (item: T, stop: AbortSignal) => Promise<R>, signal?: AbortSignal): Promise<R[]> {
  const siblings = new AbortController();
  const stop = signal ? AbortSignal.any([siblings.signal, signal]) : siblings.signal;
  return Promise.all(
    items.map((item) =>
      each(item, stop).catch((error: unknown) => {
        siblings.abort();
        throw signal?.aborted ? signal.reason : error;
      }),
    ),
  );
}
