import type { SeedMessage, TranscriptMessage } from '../protocol/index.js';

/**
 * Turns the context a parent shared into transcript messages, followed by the task itself. A
 * shared `tool` message has no call to answer, so it becomes a user message that says what it is.
 */
export function seedTranscript(
  seed: readonly SeedMessage[],
  instruction: string,
  now: number,
): TranscriptMessage[] {
  const messages: TranscriptMessage[] = [];
  for (const message of seed) {
    switch (message.role) {
      case 'system':
        messages.push({ role: 'system', text: message.content, ts: now });
        break;
      case 'user':
        messages.push({
          role: 'user',
          text: message.content,
          ...(message.name === undefined ? {} : { principal: message.name }),
          ts: now,
        });
        break;
      case 'assistant':
        messages.push({ role: 'assistant', text: message.content, tool_calls: [], ts: now });
        break;
      case 'tool':
        messages.push({
          role: 'user',
          text: `Tool output${message.name === undefined ? '' : ` from ${message.name}`} shared by the parent agent:\n${message.content}`,
          ts: now,
        });
        break;
      case 'arbor/allowed-tools':
        // The allow-list marker is a grant, not conversation: it never enters the transcript.
        break;
    }
  }
  if (instruction.trim() !== '') messages.push({ role: 'user', text: instruction, ts: now });
  return messages;
}
