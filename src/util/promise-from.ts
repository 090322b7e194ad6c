/**
 * `promiseFrom(fn)`: run `fn` now and hand back its result as a promise, a throw as a rejection —
 * an `async` function's contract for code that awaits nothing (an interface wants a Promise, the
 * work is synchronous), without `async` on a body with no `await`. The executor of `new Promise`
 * runs synchronously and turns a throw into a rejection.
 */
export function promiseFrom<T>(fn: () => T): Promise<T> {
  return new Promise<T>((resolve) => resolve(fn()));
}
