import { z } from 'zod';

/** A log or crash-report line a child writes on stderr (see `child/logger.ts`). */
const ChildLogLineSchema = z.object({ msg: z.string().min(1) });

/**
 * One line of a child's stderr as a person reads it: the `msg` of an NDJSON log or crash-report
 * line, else the line as written. Stderr is an edge: what a child writes there is only text until
 * it parses.
 */
export function readableStderrLine(line: string): string {
  if (!line.trimStart().startsWith('{')) return line;
  let parsed: unknown;
  try {
    parsed = JSON.parse(line);
  } catch {
    return line;
  }
  const report = ChildLogLineSchema.safeParse(parsed);
  return report.success ? report.data.msg : line;
}
