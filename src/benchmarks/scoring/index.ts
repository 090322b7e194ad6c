/**
 * Scoring helpers any benchmark may use: the code out of a free-form reply (extract-code.ts), the unbiased
 * pass@k estimator (pass-at-k.ts), loaders memoised per key (memo.ts).
 */
export {
  dedent,
  extractCode,
  findFencedBlocks,
  fitBody,
  type CompletionKind,
  type ExtractedCode,
  type ExtractOptions,
} from "./extract-code.js";
export { passAtK, passAtKOverTasks } from "./pass-at-k.js";
export { memoByKey } from "./memo.js";
