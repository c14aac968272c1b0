import type { Usage } from './types.js';

/** Milliseconds as a person reads them: `850ms`, `12.3s`, `4m05s`, `2h10m`. */
export function duration(ms: number | undefined): string {
  if (ms === undefined || !Number.isFinite(ms)) return '–';
  if (ms < 1000) return `${Math.round(ms)}ms`;
  if (ms < 60_000) return `${(ms / 1000).toFixed(1)}s`;
  const minutes = Math.floor(ms / 60_000);
  if (minutes < 60)
    return `${minutes}m${String(Math.floor((ms % 60_000) / 1000)).padStart(2, '0')}s`;
  return `${Math.floor(minutes / 60)}h${String(minutes % 60).padStart(2, '0')}m`;
}

export function tokens(usage: Pick<Usage, 'input_tokens' | 'output_tokens'>): string {
  return `${usage.input_tokens.toLocaleString()} + ${usage.output_tokens.toLocaleString()}`;
}

/**
 * The cache and reasoning tokens within the totals, where the provider reported any:
 * ` (900 cached, 120 cache write, 40 reasoning)`, or nothing.
 */
export function splits(
  usage: Pick<Usage, 'cache_read_tokens' | 'cache_write_tokens' | 'reasoning_tokens'>,
): string {
  const parts = [
    usage.cache_read_tokens === undefined
      ? ''
      : `${usage.cache_read_tokens.toLocaleString()} cached`,
    usage.cache_write_tokens === undefined
      ? ''
      : `${usage.cache_write_tokens.toLocaleString()} cache write`,
    usage.reasoning_tokens === undefined
      ? ''
      : `${usage.reasoning_tokens.toLocaleString()} reasoning`,
  ].filter((part) => part !== '');
  return parts.length === 0 ? '' : ` (${parts.join(', ')})`;
}

export function cost(usd: number | undefined): string {
  return usd === undefined ? '–' : `$${usd.toFixed(4)}`;
}

export function when(iso: string): string {
  return iso.replace('T', ' ').slice(0, 19);
}

export function oneLine(text: string, max: number): string {
  const flat = text.replace(/\s+/g, ' ').trim();
  return flat.length > max ? `${flat.slice(0, max - 1)}…` : flat;
}

/** Orders tree paths (`0`, `0.2`, `0.10`) as the tree reads: parent first, children by number. */
export function comparePaths(a: string, b: string): number {
  const x = a.split(/[./]/);
  const y = b.split(/[./]/);
  for (let i = 0; i < Math.min(x.length, y.length); i += 1) {
    const d = Number(x[i]) - Number(y[i]);
    if (Number.isFinite(d) && d !== 0) return d;
    if (!Number.isFinite(d) && x[i] !== y[i]) return (x[i] ?? '') < (y[i] ?? '') ? -1 : 1;
  }
  return x.length - y.length;
}
