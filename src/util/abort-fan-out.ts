/**
 * Many followers of one AbortSignal through a single listener. A run's stop
 * signal is shared by every sandbox job, and a job follows it from the moment
 * it is queued; one `abort` listener per job would put hundreds on the signal at
 * once (Node warns past 10: MaxListenersExceededWarning) and keep each until its
 * job ends. Here the signal carries at most one listener, added with the first
 * follower and removed with the last, which calls the followers in the order
 * they came.
 */

interface FanOut {
  readonly followers: Set<() => void>;
  readonly fire: () => void;
}

const fanOuts = new WeakMap<AbortSignal, FanOut>();

/**
 * Call `onAbort` once when `signal` aborts (at once when it already has, or never when there is
 * no signal). Returns the function that stops following; call it when the follower is done.
 */
export function followAbort(signal: AbortSignal | undefined, onAbort: () => void): () => void {
  if (signal === undefined) return () => {};
  if (signal.aborted) {
    onAbort();
    return () => {};
  }
  let fanOut = fanOuts.get(signal);
  if (fanOut === undefined) {
    const followers = new Set<() => void>();
    const fire = (): void => {
      fanOuts.delete(signal);
      for (const follower of followers) {
        try {
          follower();
        } catch (err) {
          // As EventTarget does with a throwing listener: reported, and the others still run.
          queueMicrotask(() => {
            throw err;
          });
        }
      }
      followers.clear();
    };
    fanOut = { followers, fire };
    fanOuts.set(signal, fanOut);
    signal.addEventListener("abort", fire, { once: true });
  }
  const { followers, fire } = fanOut;
  const follower = (): void => onAbort(); // its own identity: the same callback may follow twice
  followers.add(follower);
  return () => {
    if (!followers.delete(follower) || followers.size > 0) return;
    signal.removeEventListener("abort", fire);
    if (fanOuts.get(signal)?.fire === fire) fanOuts.delete(signal);
  };
}
