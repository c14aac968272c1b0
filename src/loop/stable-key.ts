/**
 * A canonical string for a JSON value: object keys sorted at every level, so two argument objects
 * that differ only in key order compare equal.
 */
export function stableKey(value: unknown): string {
  if (Array.isArray(value)) return `[${value.map(stableKey).join(',')}]`;
  if (value !== null && typeof value === 'object') {
    const entries = Object.entries(value as Record<string, unknown>)
      .filter(([, v]) => v !== undefined)
      .sort(([a], [b]) => (a < b ? -1 : a > b ? 1 : 0));
    return `{${entries.map(([k, v]) => `${JSON.stringify(k)}:${stableKey(v)}`).join(',')}}`;
  }
  // `JSON.stringify` gives `undefined` for `undefined` and functions, whatever its type says.
  return value === undefined || typeof value === 'function' ? 'null' : JSON.stringify(value);
}
