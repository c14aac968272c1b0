import type { TranscriptMessage } from './messages.js';
import { replayTranscript, type TranscriptEntry } from './transcript-entry.js';

/**
 * A transcript as views show it (`arbor runs transcript`, the dashboard, the prompt a span
 * records; `arbor runs export` leaves reasoning out too unless `--with-reasoning` is given): replayed as a resume would continue from it, without any assistant message's
 * `reasoning`. A provider's thinking is opaque to arbor, kept only to be sent back, and unscrubbed
 * (see `OPAQUE_FIELDS`), so it is never shown.
 */
export function shownTranscript(entries: readonly TranscriptEntry[]): TranscriptMessage[] {
  return replayTranscript(entries).map(withoutReasoning);
}

function withoutReasoning(message: TranscriptMessage): TranscriptMessage {
  if (message.role !== 'assistant' || message.reasoning === undefined) return message;
  const { reasoning: _hidden, ...shown } = message;
  return shown;
}
