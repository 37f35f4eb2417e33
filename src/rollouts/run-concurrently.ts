// A fixed pool of workers taking items in order: at most `limit` calls in flight, never more promises
// than workers (a 100k-row run must not create 100k pending calls at once).

/** Calls `work` on every item, in input order, with at most `limit` in flight (null or undefined: all at once). */
export async function runConcurrently<T>(items: readonly T[], limit: number | null | undefined, work: (item: T, index: number) => Promise<void>): Promise<void> {
  const workers = Math.max(1, Math.min(limit ?? items.length, items.length || 1));
  let next = 0;
  const worker = async () => {
    while (next < items.length) {
      const index = next++;
      await work(items[index]!, index);
    }
  };
  await Promise.all(Array.from({ length: workers }, worker));
}
