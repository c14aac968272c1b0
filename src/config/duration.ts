import { ArborError } from '../protocol/index.js';

const UNITS: Record<string, number> = {
  ms: 1,
  s: 1_000,
  m: 60_000,
  h: 3_600_000,
  d: 86_400_000,
};

/** One or more `NUMBER UNIT` parts, as the config file's JSON Schema states it for editors. */
export const DURATION_PATTERN = /^(\d+(\.\d+)?(ms|s|m|h|d))+$/;

/**
 * The longest duration a setting takes unless it says otherwise: 24 days. Node's timers hold at
 * most 2^31 − 1 ms (about 24.8 days) and fire at once past that, so a longer deadline or timeout
 * would end a run immediately instead of never.
 */
export const MAX_DURATION_MS = 24 * 86_400_000;

/**
 * Parses a duration written `500ms`, `30s`, `5m`, `1h`, `7d` or a combination (`1m30s`) into
 * milliseconds. `what` names the setting in the error; `maxMs` bounds it (default
 * {@link MAX_DURATION_MS}).
 */
export function parseDuration(
  text: string,
  what: string,
  { maxMs = MAX_DURATION_MS }: { maxMs?: number } = {},
): number {
  const total = durationMs(text);
  if (total === undefined) {
    throw new ArborError(
      'usage',
      `Expected \`${what}\` to be a duration such as \`500ms\`, \`30s\`, \`5m\`, \`1h\` or \`7d\`, got \`${text}\`.`,
    );
  }
  if (total > maxMs) {
    throw new ArborError(
      'usage',
      `Expected \`${what}\` to be at most ${formatDuration(maxMs)}, got \`${text}\`.`,
    );
  }
  return total;
}

/**
 * Parses a duration that is never a timer, such as an age (`runs prune --older-than 30d`,
 * `runs list --since 90d`): like {@link parseDuration} without the 24-day timer cap. An age too
 * large for a number is `Infinity`, which reaches back before any run.
 */
export function parseAge(text: string, what: string): number {
  return parseDuration(text, what, { maxMs: Infinity });
}

/**
 * The milliseconds of a duration (at least 1; `Infinity` past what a number holds), or
 * `undefined` when `text` is not one.
 */
export function durationMs(text: string): number | undefined {
  const trimmed = text.trim();
  const pattern = /(\d+(?:\.\d+)?)(ms|s|m|h|d)/gy;
  let total = 0;
  let consumed = 0;
  for (let match = pattern.exec(trimmed); match !== null; match = pattern.exec(trimmed)) {
    total += Number(match[1]) * (UNITS[match[2] ?? ''] ?? 0);
    consumed = pattern.lastIndex;
  }
  if (trimmed === '' || consumed !== trimmed.length || total <= 0) return undefined;
  return Number.isFinite(total) ? Math.max(1, Math.round(total)) : Infinity;
}

/** `2073600000` → `24d`; `90000` → `1m30s`: the largest units that add up exactly. */
export function formatDuration(ms: number): string {
  let rest = Math.round(ms);
  let text = '';
  for (const unit of ['d', 'h', 'm', 's', 'ms']) {
    const size = UNITS[unit] ?? 1;
    const count = Math.floor(rest / size);
    if (count > 0) text += `${count}${unit}`;
    rest -= count * size;
  }
  return text === '' ? '0ms' : text;
}
