/** Memoisation for a benchmark's loaders: a dataset or answers file read once per run, however many items ask. */

/** `fn` called once per key; later calls share the first call's promise (a rejection too). */
export function memoByKey<T>(fn: (key: string) => Promise<T>): (key: string) => Promise<T> {
  const cache = new Map<string, Promise<T>>();
  return (key) => {
    let p = cache.get(key);
    if (!p) {
      p = fn(key);
      cache.set(key, p);
    }
    return p;
  };
}
