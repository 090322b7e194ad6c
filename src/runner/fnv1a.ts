/**
 * FNV-1a, 32-bit (offset basis 2166136261, prime 16777619) over the UTF-8
 * bytes of a string — the hash smi_bench uses for deterministic sampling.
 * Reference values: fnv1a32("") = 0x811c9dc5, fnv1a32("a") = 0xe40c292c.
 */
const OFFSET_BASIS = 0x811c9dc5;
const PRIME = 0x01000193;

/** FNV-1a 32-bit hash of `text` (UTF-8), as an unsigned integer. */
export function fnv1a32(text: string): number {
  let hash = OFFSET_BASIS;
  for (const byte of Buffer.from(text, "utf8")) {
    hash ^= byte;
    // Math.imul keeps the multiplication in 32 bits, as the C reference does.
    hash = Math.imul(hash, PRIME) >>> 0;
  }
  return hash >>> 0;
}
