/**
 * Reads a `Retry-After` header: delay-seconds (`120`) or an HTTP date
 * (`Wed, 21 Oct 2015 07:28:00 GMT`). Returns the wait in milliseconds from `now`, or `undefined`
 * when the header is absent or unreadable. A date in the past means "now": 0.
 */
export function parseRetryAfter(value: string | null | undefined, now: number): number | undefined {
  if (value === null || value === undefined) return undefined;
  const text = value.trim();
  if (/^\d+$/.test(text)) return Number(text) * 1000;
  // Only the HTTP-date form has letters; a bare or signed number that is not an integer is junk.
  if (!/[a-z]/i.test(text)) return undefined;
  const at = Date.parse(text);
  if (Number.isNaN(at)) return undefined;
  return Math.max(0, at - now);
}
