/**
 * Writes that arrive in the same turn of the event loop, committed together:
 * each `add` is queued, and one `commit` call on the next turn (setImmediate)
 * writes the whole queue and answers each caller with its own result, or every
 * caller with the commit's error. For the SQLite store's unsynced appends: one
 * transaction (one WAL write) for the SSE events of every call answered in that
 * turn, instead of one each. A caller is answered only after its write is
 * committed, so what it reads next includes it.
 */
export class GroupCommit<T, R> {
  private queue: { item: T; resolve: (result: R) => void; reject: (error: unknown) => void }[] = [];

  constructor(private readonly commit: (items: readonly T[]) => readonly R[]) {}

  add(item: T): Promise<R> {
    return new Promise<R>((resolve, reject) => {
      this.queue.push({ item, resolve, reject });
      if (this.queue.length === 1) {
        setImmediate(() => this.flush());
      }
    });
  }

  private flush(): void {
    const batch = this.queue;
    this.queue = [];
    let results: readonly R[];
    try {
      results = this.commit(batch.map((b) => b.item));
    } catch (error) {
      for (const b of batch) {
        b.reject(error);
      }
      return;
    }
    batch.forEach((b, i) => b.resolve(results[i]));
  }
}
