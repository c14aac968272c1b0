/** Longest text result handed back to a parent, in bytes. */
export const MAX_RESULT_BYTES = 8_000;
/** Longest structured result handed back to a parent, in bytes of JSON. */
export const MAX_STRUCTURED_BYTES = 32_000;

/**
 * A child's result as its parent receives it: bounded in size (a cut is marked, never silent) and
 * re-parsed when it is JSON text, so a child that answers with JSON hands back a value.
 */
export function distillResult(result: unknown): unknown {
  if (typeof result === 'string') {
    const parsed = parseJsonValue(result);
    if (parsed !== undefined) return distillResult(parsed);
    return cut(result, MAX_RESULT_BYTES);
  }
  if (result !== null && typeof result === 'object') {
    const text = JSON.stringify(result);
    if (Buffer.byteLength(text) > MAX_STRUCTURED_BYTES) return cut(text, MAX_STRUCTURED_BYTES);
  }
  return result ?? null;
}

/** Cuts text to at most `max` UTF-8 bytes at a character boundary, saying how much was kept. */
export function cut(text: string, max: number): string {
  const bytes = Buffer.byteLength(text);
  if (bytes <= max) return text;
  let kept = text.slice(0, max);
  while (Buffer.byteLength(kept) > max) kept = kept.slice(0, -1);
  // Never end on half a surrogate pair.
  if (/[\uD800-\uDBFF]$/.test(kept)) kept = kept.slice(0, -1);
  return `${kept}… [truncated: ${Buffer.byteLength(kept)} of ${bytes} bytes shown]`;
}

function parseJsonValue(text: string): object | undefined {
  const trimmed = text.trim();
  if (!(trimmed.startsWith('{') || trimmed.startsWith('['))) return undefined;
  try {
    const value: unknown = JSON.parse(trimmed);
    return value !== null && typeof value === 'object' ? value : undefined;
  } catch {
    return undefined;
  }
}
