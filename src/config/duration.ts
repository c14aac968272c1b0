import { ArborError } from '../protocol/index.js';

const UNITS: Record<string, number> = { ms: 1, s: 1_000, m: 60_000, h: 3_600_000 };

/**
 * Parses a duration written `500ms`, `30s`, `5m`, `1h` or a combination (`1m30s`) into
 * milliseconds. `what` names the setting in the error.
 */
export function parseDuration(text: string, what: string): number {
  const trimmed = text.trim();
  const pattern = /(\d+(?:\.\d+)?)(ms|s|m|h)/gy;
  let total = 0;
  let consumed = 0;
  for (let match = pattern.exec(trimmed); match !== null; match = pattern.exec(trimmed)) {
    total += Number(match[1]) * (UNITS[match[2] ?? ''] ?? 0);
    consumed = pattern.lastIndex;
  }
  if (trimmed === '' || consumed !== trimmed.length || !Number.isFinite(total) || total <= 0) {
    throw new ArborError(
      'usage',
      `Expected \`${what}\` to be a duration such as \`500ms\`, \`30s\`, \`5m\` or \`1h\`, got \`${text}\`.`,
    );
  }
  return Math.round(total);
}
