/** Library API of a2a-bench. */
export * from "./runner/protocol.js";
export type * from "./sandbox/types.js";
