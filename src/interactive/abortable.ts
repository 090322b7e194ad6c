/**
 * `promise`, or a rejection with the signal's reason as soon as `signal`
 * aborts, whichever comes first: the episode ends on time even when a
 * participant client or an environment backend ignores the signal it was
 * given (what they do after that is their business; the promise is left to
 * settle unobserved).
 */
export function untilAborted<T>(promise: Promise<T>, signal: AbortSignal): Promise<T> {
  if (signal.aborted) {
    promise.catch(() => {});
    return Promise.reject(signal.reason as Error);
  }
  return new Promise<T>((resolve, reject) => {
    const onAbort = (): void => reject(signal.reason as Error);
    signal.addEventListener("abort", onAbort, { once: true });
    promise.then(
      (value) => {
        signal.removeEventListener("abort", onAbort);
        resolve(value);
      },
      (err: unknown) => {
        signal.removeEventListener("abort", onAbort);
        // eslint-disable-next-line @typescript-eslint/prefer-promise-reject-errors -- the promise's own rejection, passed on unchanged
        reject(err);
      },
    );
  });
}
