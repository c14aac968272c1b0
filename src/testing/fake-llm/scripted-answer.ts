import { toWireToolName } from '../../intel/index.js';
import type { InspectedRequest } from './inspect-request.js';
import type { Step } from './playbook.js';

/** A step's answer, ready to be written in either dialect. Tool names are in wire form. */
export interface ScriptedAnswer {
  /** The message id (`chatcmpl-3`, `msg_3`): the request's sequence number. */
  seq: number;
  model: string;
  text: string;
  /** Stream the text in pieces of this many characters (absent: a word at a time). */
  chunkChars?: number;
  toolCalls: { id: string; name: string; args: Record<string, unknown> }[];
  usage: { input_tokens: number; output_tokens: number };
}

/** The usual four characters a token: deterministic, close enough for budgets in tests. */
const CHARS_PER_TOKEN = 4;

export function scriptedAnswer(
  step: Step,
  request: InspectedRequest,
  seq: number,
  requestChars: number,
  nextCallId: () => string,
): ScriptedAnswer {
  const text = step.text ?? '';
  const toolCalls = (step.tool_calls ?? []).map((call) => ({
    id: call.id ?? nextCallId(),
    name: toWireToolName(call.name),
    args: call.args,
  }));
  const outputChars = toolCalls.reduce(
    (sum, call) => sum + call.name.length + JSON.stringify(call.args).length,
    text.length,
  );
  return {
    seq,
    model: request.model,
    text,
    ...(step.chunk_chars === undefined ? {} : { chunkChars: step.chunk_chars }),
    toolCalls,
    usage: step.usage ?? {
      input_tokens: Math.ceil(requestChars / CHARS_PER_TOKEN),
      output_tokens: Math.max(1, Math.ceil(outputChars / CHARS_PER_TOKEN)),
    },
  };
}

/**
 * Splits text the way a model streams it: a word and its trailing space at a time, or pieces of
 * `chunkChars` characters (which may cut a word anywhere).
 */
export function textChunks(text: string, chunkChars?: number): string[] {
  if (chunkChars === undefined) return text.match(/\s*\S+\s*|\s+/g) ?? [];
  const out: string[] = [];
  for (let at = 0; at < text.length; at += chunkChars) out.push(text.slice(at, at + chunkChars));
  return out;
}

/** Splits tool arguments into two pieces, so clients must join argument deltas. */
export function argsChunks(args: Record<string, unknown>): string[] {
  const json = JSON.stringify(args);
  const half = Math.ceil(json.length / 2);
  return json.length < 2 ? [json] : [json.slice(0, half), json.slice(half)];
}
