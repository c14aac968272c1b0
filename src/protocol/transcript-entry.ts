import { z } from 'zod';
import { CountSchema } from './primitives.js';
import { TranscriptMessageSchema, type TranscriptMessage } from './messages.js';
import { OutcomeSchema, type Outcome } from './outcome.js';

/** The `event` a child reports each change of its transcript with, so a crash loses none of it. */
export const TRANSCRIPT_EVENT = 'transcript';

/**
 * One change to a node's transcript, in the order it happened: a message appended (a tool result
 * is appended the moment its call completes, so a crash mid-round keeps the calls that finished),
 * or the transcript cut back to `length` messages (a turn restarted on a swapped model).
 */
export const ChildTranscriptEntrySchema = z.discriminatedUnion('op', [
  z.object({ op: z.literal('append'), message: TranscriptMessageSchema }),
  z.object({ op: z.literal('rewind'), length: CountSchema }),
]);
export type ChildTranscriptEntry = z.infer<typeof ChildTranscriptEntrySchema>;

/**
 * A recorded change: one a child reported, or `turn`, which the supervisor writes when a warm
 * node's turn answer reached it (was announced), with that turn's outcome, so a resume neither
 * announces it again nor loses it.
 */
export const TranscriptEntrySchema = z.discriminatedUnion('op', [
  ...ChildTranscriptEntrySchema.options,
  z.object({ op: z.literal('turn'), outcome: OutcomeSchema.optional() }),
]);
export type TranscriptEntry = z.infer<typeof TranscriptEntrySchema>;

/** The outcomes of the turns the entries mark as announced, in order. */
export function announcedTurns(entries: readonly TranscriptEntry[]): Outcome[] {
  return entries.flatMap((e) => (e.op === 'turn' && e.outcome !== undefined ? [e.outcome] : []));
}

/** Whether the last turn the entries hold was announced: a `turn` mark follows its last message. */
export function turnAnnounced(entries: readonly TranscriptEntry[]): boolean {
  const mark = entries.findLastIndex((e) => e.op === 'turn');
  return mark >= 0 && mark > entries.findLastIndex((e) => e.op !== 'turn');
}

/**
 * The transcript the entries describe, ready to continue from. Tool results were recorded as
 * their calls completed, in any order; each is put back after the assistant message that made the
 * call, in the order the model made the calls, as the loop itself commits them.
 */
export function replayTranscript(entries: readonly TranscriptEntry[]): TranscriptMessage[] {
  const messages: TranscriptMessage[] = [];
  for (const entry of entries) {
    if (entry.op === 'rewind') messages.length = Math.min(entry.length, messages.length);
    else if (entry.op === 'append') messages.push(entry.message);
  }
  const out: TranscriptMessage[] = [];
  let round: { order: Map<string, number>; results: TranscriptMessage[] } | undefined;
  const closeRound = (): void => {
    if (round === undefined) return;
    const { order } = round;
    const rank = (m: TranscriptMessage): number =>
      m.role === 'tool' ? (order.get(m.id) ?? order.size) : order.size;
    out.push(...round.results.sort((a, b) => rank(a) - rank(b)));
    round = undefined;
  };
  for (const message of messages) {
    if (message.role === 'tool' && round !== undefined) {
      round.results.push(message);
      continue;
    }
    closeRound();
    out.push(message);
    if (message.role === 'assistant' && message.tool_calls.length > 0)
      round = { order: new Map(message.tool_calls.map((c, i) => [c.id, i])), results: [] };
  }
  closeRound();
  return out;
}
