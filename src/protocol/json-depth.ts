/**
 * Whether JSON text nests objects and arrays deeper than `limit` (brackets inside strings do not
 * count). One pass over the characters, with no parsing and no allocation, that stops at the first
 * bracket past the limit: it runs before `JSON.parse`, so text nested millions deep is turned away
 * in microseconds instead of blocking the event loop while it is parsed and then walked.
 *
 * Text that is not JSON gets an answer too (unbalanced brackets just count); the parser that runs
 * next reports what else is wrong with it.
 */
export function nestsDeeperThan(text: string, limit: number): boolean {
  // Only text with more brackets than the limit allows can nest past it.
  if (text.length <= 2 * limit) return false;
  let depth = 0;
  let inString = false;
  for (let i = 0; i < text.length; i++) {
    const c = text.charCodeAt(i);
    if (inString) {
      if (c === 0x5c) i += 1;
      else if (c === 0x22) inString = false;
    } else if (c === 0x22) inString = true;
    else if (c === 0x7b || c === 0x5b) {
      if (++depth > limit) return true;
    } else if (c === 0x7d || c === 0x5d) depth -= 1;
  }
  return false;
}
