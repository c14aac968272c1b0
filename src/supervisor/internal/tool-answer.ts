import type { Taint } from '../../protocol/index.js';

/** What the supervisor answers a `tool_request` with. */
export interface ToolAnswer {
  result: unknown;
  is_error: boolean;
  /** The supervisor refused the call before the tool ran (a policy rule, a person's no). */
  refused?: boolean;
  /** What the answer carries from a sub-agent that was exposed or sensitive. */
  taint?: Taint;
}

export function ok(result: unknown): ToolAnswer {
  return { result, is_error: false };
}

export function fail(message: string): ToolAnswer {
  return { result: message, is_error: true };
}

/** A refusal: the tool did not run, and the text is the supervisor's. */
export function refuse(message: string): ToolAnswer {
  return { result: message, is_error: true, refused: true };
}
