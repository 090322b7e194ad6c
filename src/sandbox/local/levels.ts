/** The local backend's isolation levels and own options, as types apart from its descriptor so its code can use them. */

/** Strongest first (the descriptor's `isolationLevels`): bwrap isolates fully; unshare keeps the host's filesystem readable; none isolates nothing. */
export type LocalIsolation = "bwrap" | "unshare" | "none";

/** The local backend's own options (`CreateSandboxOptions.backendOptions`). */
export interface LocalOptions {
  /** Use exactly this isolation level (tests, or deliberate downgrades); default: the strongest available. */
  forceIsolation?: LocalIsolation;
}
