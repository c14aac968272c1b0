import {
  ArborError,
  CHILD_BOUNDS,
  TRANSCRIPT_EVENT,
  transcriptParts,
  type AgentFrame,
  type TranscriptEntry,
} from '../protocol/index.js';
import type { FrameWriter } from './frame-writer.js';

/**
 * Reports one change of the transcript to the supervisor. An entry within an event's bound goes
 * in one frame; a larger one (a model's tool call carrying megabytes of arguments) goes in pieces,
 * each within the bound, which the supervisor puts back together: it is recorded whole, so a
 * resume continues from it, and no frame of an honest child is ever past a bound of the protocol.
 *
 * An entry larger than the supervisor puts together (`transcriptEntryChars`, the size of the
 * largest model answer arbor reads whole) cannot be recorded: that is an error of the model's
 * answer, thrown here with both sizes, never a frame the supervisor would count against the child.
 */
export function sendTranscript(writer: FrameWriter, entry: TranscriptEntry): void {
  const frame: AgentFrame = { type: 'event', event: TRANSCRIPT_EVENT, fields: entry };
  const line = JSON.stringify(frame);
  // The fields are shorter than the frame's line, so a line within the bound is an entry within it.
  if (line.length <= CHILD_BOUNDS.fieldsChars) {
    writer.send(frame);
    return;
  }
  if (line.length > CHILD_BOUNDS.transcriptEntryChars)
    throw new ArborError(
      'frame_too_large',
      `Expected a transcript entry of at most ${CHILD_BOUNDS.transcriptEntryChars} characters, got ${line.length}: the model's answer is larger than arbor records.`,
      { details: { chars: line.length, maxChars: CHILD_BOUNDS.transcriptEntryChars } },
    );
  for (const part of transcriptParts(line))
    writer.send({ type: 'event', event: TRANSCRIPT_EVENT, fields: part });
}
