/** A tool result as the text the model reads: strings as they are, anything else as JSON. */
export function toolResultText(content: unknown): string {
  if (typeof content === 'string') return content;
  return content === undefined ? 'null' : JSON.stringify(content);
}
