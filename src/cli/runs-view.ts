import type { TranscriptMessage, Usage } from '../protocol/index.js';

/** How `arbor runs` prints runs for a person (the views themselves: `src/dashboard/run-views.ts`). */

/** Milliseconds as a person reads them: `850ms`, `12.3s`, `4m05s`, `2h10m`. */
export function duration(ms: number | undefined): string {
  if (ms === undefined) return '-';
  if (ms < 1000) return `${ms}ms`;
  if (ms < 60_000) return `${(ms / 1000).toFixed(1)}s`;
  const minutes = Math.floor(ms / 60_000);
  if (minutes < 60)
    return `${minutes}m${String(Math.floor((ms % 60_000) / 1000)).padStart(2, '0')}s`;
  return `${Math.floor(minutes / 60)}h${String(minutes % 60).padStart(2, '0')}m`;
}

/** A node's usage in `arbor runs show`: `1200+300 tok (900 cached) $0.0031`. */
export function usageText(usage: Usage): string {
  const tokens = `${usage.input_tokens}+${usage.output_tokens} tok${splitText(usage)}`;
  return usage.cost_usd === undefined ? tokens : `${tokens} $${usage.cost_usd.toFixed(4)}`;
}

/**
 * The cache and reasoning tokens within a usage's totals, where the provider reported any:
 * ` (900 cached, 120 cache write, 40 reasoning)`, or nothing. Cache writes include the one-hour
 * ones. Counts as given, or shortened (`1.2k`) with `short`.
 */
export function splitText(usage: Usage, short = false): string {
  const count = (n: number): string =>
    short && n >= 1000 ? `${(n / 1000).toFixed(1)}k` : String(n);
  const parts = [
    usage.cache_read_tokens === undefined ? '' : `${count(usage.cache_read_tokens)} cached`,
    usage.cache_write_tokens === undefined ? '' : `${count(usage.cache_write_tokens)} cache write`,
    usage.reasoning_tokens === undefined ? '' : `${count(usage.reasoning_tokens)} reasoning`,
  ].filter((part) => part !== '');
  return parts.length === 0 ? '' : ` (${parts.join(', ')})`;
}

/** Rows as a table: columns padded to their widest cell, the last one left as it is. */
export function table(header: readonly string[], rows: readonly (readonly string[])[]): string {
  const widths = header.map((title, column) =>
    Math.max(title.length, ...rows.map((row) => (row[column] ?? '').length)),
  );
  const line = (cells: readonly string[]): string =>
    cells
      .map((cell, column) =>
        column === cells.length - 1 ? cell : cell.padEnd(widths[column] ?? 0),
      )
      .join('  ')
      .trimEnd();
  return `${[line(header), ...rows.map(line)].join('\n')}\n`;
}

/** One line of text, cut to `max` characters. */
export function oneLine(text: string, max: number): string {
  const flat = text.replace(/\s+/g, ' ').trim();
  return flat.length > max ? `${flat.slice(0, max - 1)}…` : flat;
}

/** A transcript as a person reads it: who said what, tool calls and what they returned. */
export function transcriptText(messages: readonly TranscriptMessage[]): string {
  const lines: string[] = [];
  for (const message of messages) {
    switch (message.role) {
      case 'system':
        lines.push(`[system] ${oneLine(message.text, 200)}`);
        break;
      case 'user':
        lines.push(
          `[user${message.principal === undefined ? '' : ` ${message.principal}`}] ${message.text}`,
        );
        break;
      case 'assistant':
        if (message.text !== undefined && message.text !== '')
          lines.push(`[assistant] ${message.text}`);
        for (const call of message.tool_calls)
          lines.push(
            `[tool call ${call.id}] ${call.name} ${oneLine(JSON.stringify(call.args), 300)}`,
          );
        break;
      case 'tool':
        lines.push(
          `[tool ${message.is_error ? 'error' : 'result'} ${message.id}] ${message.name}: ${oneLine(typeof message.content === 'string' ? message.content : JSON.stringify(message.content), 500)}`,
        );
        break;
      case 'note':
        lines.push(`[note] ${message.text}`);
        break;
    }
  }
  return lines.length === 0 ? '(no messages)\n' : `${lines.join('\n')}\n`;
}
