import { isDeepStrictEqual } from 'node:util';
import type { TranscriptMessage } from './messages.js';

/** What differs between two transcripts at the first place they do (see `diffMessages`). */
export type MessageDivergenceKind = 'role' | 'text' | 'tool_calls' | 'tool_result' | 'ended';
type DivergenceKind = MessageDivergenceKind;

/** Lines of one side of a divergence at most, and characters of each line. */
const MAX_LINES = 4;
const LINE_CHARS = 160;

/** Where two transcripts first differ: the message's index and step, what differed, each side. */
export interface MessageDivergence {
  index: number;
  step: number;
  what: DivergenceKind;
  a: string | null;
  b: string | null;
}

/**
 * Compares two shown transcripts message by message and returns the first difference, or
 * undefined when they are the same. Timestamps (`ts`) and the ids of tool calls (the model makes
 * them up; a tool result is matched to its call by position) do not count.
 */
export function diffMessages(
  a: readonly TranscriptMessage[],
  b: readonly TranscriptMessage[],
): MessageDivergence | undefined {
  let step = 1;
  for (let index = 0; index < Math.max(a.length, b.length); index += 1) {
    const left = a[index];
    const right = b[index];
    const what = kindOf(left, right);
    if (what !== undefined)
      return {
        index,
        step,
        what,
        a: left === undefined ? null : shownLines(left, what),
        b: right === undefined ? null : shownLines(right, what),
      };
    // Both are assistant messages here, or neither: the next message belongs to the next call.
    if (left?.role === 'assistant') step += 1;
  }
  return undefined;
}

/** What differs between two messages at the same place; undefined: nothing that counts. */
function kindOf(
  a: TranscriptMessage | undefined,
  b: TranscriptMessage | undefined,
): DivergenceKind | undefined {
  if (a === undefined || b === undefined) return a === b ? undefined : 'ended';
  if (a.role !== b.role) return 'role';
  switch (a.role) {
    case 'system':
    case 'note':
      return a.text === (b as typeof a).text ? undefined : 'text';
    case 'user': {
      const other = b as typeof a;
      return a.text === other.text && a.principal === other.principal ? undefined : 'text';
    }
    case 'assistant': {
      const other = b as typeof a;
      if ((a.text ?? '') !== (other.text ?? '')) return 'text';
      return isDeepStrictEqual(a.tool_calls.map(callShape), other.tool_calls.map(callShape))
        ? undefined
        : 'tool_calls';
    }
    case 'tool': {
      const other = b as typeof a;
      return a.name === other.name &&
        a.is_error === other.is_error &&
        isDeepStrictEqual(a.content, other.content)
        ? undefined
        : 'tool_result';
    }
  }
}

/** A tool call without its id. */
const callShape = (call: { name: string; args: unknown }) => ({ name: call.name, args: call.args });

/**
 * One side of a divergence as a person reads it: the part that differed (the text, the calls one
 * a line as `fs.read {"path":"a"}`, the result), cut to a few short lines.
 */
function shownLines(message: TranscriptMessage, what: DivergenceKind): string {
  return cut(linesOf(message, what));
}

function linesOf(message: TranscriptMessage, what: DivergenceKind): string[] {
  switch (message.role) {
    case 'system':
    case 'note':
      return [`[${message.role}] ${message.text}`];
    case 'user':
      return [
        `[user${message.principal === undefined ? '' : ` ${message.principal}`}] ${message.text}`,
      ];
    case 'assistant': {
      const calls = message.tool_calls.map((c) => `${c.name} ${JSON.stringify(c.args)}`);
      if (what === 'tool_calls') return calls.length === 0 ? ['(no tool calls)'] : calls;
      const text = `[assistant] ${message.text ?? ''}`;
      return what === 'text' ? [text] : [text, ...calls];
    }
    case 'tool': {
      const content =
        typeof message.content === 'string' ? message.content : JSON.stringify(message.content);
      return [`[${message.is_error ? 'tool error' : 'tool result'}] ${message.name}: ${content}`];
    }
  }
}

/** Lines split on newlines, each cut to `LINE_CHARS`, at most `MAX_LINES` of them. */
export function cut(lines: readonly string[]): string {
  const all = lines.flatMap((line) => line.split('\n'));
  const shown = all
    .slice(0, MAX_LINES)
    .map((line) => (line.length > LINE_CHARS ? `${line.slice(0, LINE_CHARS - 1)}…` : line));
  if (all.length > MAX_LINES) shown.push(`… (${all.length - MAX_LINES} more lines)`);
  return shown.join('\n');
}
