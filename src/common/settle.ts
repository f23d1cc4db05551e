/**
 * The value of a synchronous step as a promise, its throw as a rejection: what
 * an `async` function with no `await` did, said outright (ESLint's
 * require-await). For methods of a promise contract whose work here is
 * synchronous (the SQLite store, fixtures), so a caller's `.catch` still sees
 * every failure. A step that returns a promise is followed, as Promise.resolve does.
 */
export function settle<T>(step: () => T): Promise<Awaited<T>> {
  try {
    return Promise.resolve(step());
  } catch (error) {
    return Promise.reject(error instanceof Error ? error : new Error(String(error)));
  }
}
