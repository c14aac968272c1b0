/**
 * The known key a mistyped one most likely meant, or `undefined`: within two edits, or sharing a
 * prefix of at least three characters with exactly one known key (`dependz` → `deps`,
 * `network` → `net`).
 */
export function suggestKey(key: string, known: readonly string[]): string | undefined {
  const near = known
    .map((candidate) => ({ candidate, distance: editDistance(key, candidate) }))
    .filter(({ distance }) => distance <= 2)
    .sort((a, b) => a.distance - b.distance);
  if (near[0] !== undefined) return near[0].candidate;
  const prefixed = known.filter((candidate) => commonPrefix(key, candidate) >= 3);
  return prefixed.length === 1 ? prefixed[0] : undefined;
}

function commonPrefix(a: string, b: string): number {
  let n = 0;
  while (n < a.length && n < b.length && a[n] === b[n]) n++;
  return n;
}

/** Levenshtein distance, one row at a time. */
function editDistance(a: string, b: string): number {
  let previous = Array.from({ length: b.length + 1 }, (_, j) => j);
  for (let i = 1; i <= a.length; i++) {
    const current = [i];
    for (let j = 1; j <= b.length; j++) {
      const substitution = (previous[j - 1] ?? 0) + (a[i - 1] === b[j - 1] ? 0 : 1);
      current.push(Math.min(substitution, (previous[j] ?? 0) + 1, (current[j - 1] ?? 0) + 1));
    }
    previous = current;
  }
  return previous[b.length] ?? 0;
}
