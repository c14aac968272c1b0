import type { z } from 'zod';
import { ArborError } from './errors.js';
import { formatIssues } from './issues.js';
import type { TranscriptMessage } from './messages.js';
import {
  RUN_FILE_FORMAT,
  RUN_FILE_FORMAT_PATTERN,
  RUN_FILE_VERSION,
  RunFileSchema,
  RunFileV0Schema,
  type RunFile,
} from './run-file.js';

/** A run file read and checked. */
export interface LoadedRunFile {
  /** The format version it was written in: 0 for an export made before run files had one. */
  version: number;
  /** What it lacks that this arbor's run files hold (empty for the current version). */
  notes: string[];
  /** The run, in this arbor's form (an older file with what it lacks left empty). */
  file: RunFile;
}

/** Problems named in the error about a corrupt file; past these, a count. */
const ISSUES_SHOWN = 10;

/** What a file written before run files had a format lacks. */
const V0_NOTE =
  'written before run files had a format version (arbor.run/0): it has no per-call records ' +
  '(tools offered, sampling, model asked), no arbor version and no reasoning blocks of thinking models';

/**
 * Reads a run file (`arbor runs export`): JSON, `format` a version this arbor knows, and a document
 * of that version's shape. Throws `run_file_invalid` naming what was wrong: not JSON (and where),
 * not a run file, a newer format, or the fields that do not hold what they should.
 */
export function loadRunFile(text: string, source = 'the run file'): LoadedRunFile {
  const document = parseJson(text, source);
  if (typeof document !== 'object' || document === null || Array.isArray(document))
    throw invalid(`${source} is not a run file: expected a JSON object, got ${kindOf(document)}.`);
  const format = (document as Record<string, unknown>).format;
  if (format === undefined) {
    if (!('run_id' in document && 'nodes' in document))
      throw invalid(
        `${source} is not a run file: it has no \`format\` (expected \`${RUN_FILE_FORMAT}\`).`,
      );
    const old = checked(RunFileV0Schema, document, source);
    const file: RunFile = {
      ...old,
      format: RUN_FILE_FORMAT,
      arbor_version: 'unknown',
      model_calls: {},
      tools: {},
    };
    return { version: 0, notes: [V0_NOTE], file };
  }
  const named = typeof format === 'string' ? format : JSON.stringify(format);
  const version =
    typeof format === 'string' ? RUN_FILE_FORMAT_PATTERN.exec(format)?.[1] : undefined;
  if (version === undefined || Number(version) < RUN_FILE_VERSION) {
    throw invalid(
      `${source} is not a run file: unknown format \`${named}\` (expected \`${RUN_FILE_FORMAT}\`).`,
    );
  }
  if (Number(version) > RUN_FILE_VERSION)
    throw invalid(
      `${source} was written by a newer arbor: format ${named}; this arbor reads ${RUN_FILE_FORMAT}.`,
      { format, reads: RUN_FILE_FORMAT },
    );
  return { version: RUN_FILE_VERSION, notes: [], file: checked(RunFileSchema, document, source) };
}

/**
 * A node's transcript from a run file, as the node had it: each assistant message with its
 * reasoning back in place, ready to send again. Empty for a path the file does not hold.
 */
export function recordedTranscript(file: RunFile, path: string): TranscriptMessage[] {
  return (file.transcripts[path] ?? []).map((entry) => {
    const { opaque_reasoning: reasoning, ...message } = entry;
    if (reasoning === undefined || message.role !== 'assistant') return message;
    return { ...message, reasoning };
  });
}

function parseJson(text: string, source: string): unknown {
  try {
    return JSON.parse(text) as unknown;
  } catch (error) {
    const reason = error instanceof Error ? error.message : String(error);
    const at = /position (\d+)/.exec(reason)?.[1];
    const where =
      at !== undefined
        ? ` at character ${at} (${lineAndColumn(text, Number(at))})`
        : reason.includes('end of JSON input')
          ? ` at its end (character ${text.length}): it stops before the document is complete`
          : '';
    throw invalid(`${source} is not JSON${where}: ${reason}.`, {
      ...(at === undefined ? {} : { position: Number(at) }),
    });
  }
}

function checked<S extends z.ZodType>(schema: S, document: unknown, source: string): z.infer<S> {
  const read = schema.safeParse(document, { reportInput: true });
  if (read.success) return read.data;
  const { issues } = read.error;
  const more = issues.length > ISSUES_SHOWN ? `; and ${issues.length - ISSUES_SHOWN} more` : '';
  throw invalid(
    `${source} is a corrupt run file: ${formatIssues(issues.slice(0, ISSUES_SHOWN))}${more}.`,
    { issues: issues.length },
  );
}

function lineAndColumn(text: string, position: number): string {
  const before = text.slice(0, position).split('\n');
  return `line ${before.length}, column ${(before.at(-1)?.length ?? 0) + 1}`;
}

function kindOf(value: unknown): string {
  if (value === null) return 'null';
  return Array.isArray(value) ? 'an array' : `a ${typeof value}`;
}

function invalid(message: string, details: Record<string, unknown> = {}): ArborError {
  return new ArborError('run_file_invalid', message, { details });
}
