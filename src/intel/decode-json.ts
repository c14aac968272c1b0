/**
 * The intelligence layer's one JSON edge: response bodies, stream events and tool arguments all
 * come from an endpoint as text and are decoded here, then validated by the caller's schema.
 */
export type JsonDecode = { ok: true; value: unknown } | { ok: false; reason: string };

export function decodeJson(text: string): JsonDecode {
  try {
    return { ok: true, value: JSON.parse(text) as unknown };
  } catch (error) {
    // The parser's message quotes the offending text, which may be anything the endpoint sent.
    const position = error instanceof SyntaxError ? /position (\d+)/.exec(error.message) : null;
    const where = position === null ? '' : ` at character ${position[1]}`;
    return { ok: false, reason: `not valid JSON${where} (${text.length} chars)` };
  }
}
