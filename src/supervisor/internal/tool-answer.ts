/** What the supervisor answers a `tool_request` with. */
export interface ToolAnswer {
  result: unknown;
  is_error: boolean;
}

export function ok(result: unknown): ToolAnswer {
  return { result, is_error: false };
}

export function fail(message: string): ToolAnswer {
  return { result: message, is_error: true };
}
