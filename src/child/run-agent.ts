import {
  agentSystemPrompt,
  seedTranscript,
  type AgentSession,
  type TurnReport,
} from '../loop/index.js';
import type { Outcome, TranscriptMessage } from '../protocol/index.js';
import { applyParkedSwap, type ChildContext } from './child-context.js';
import { childSession } from './child-session.js';
import { isolationMarker } from './child-guard.js';
import { sendTranscript } from './transcript-sender.js';
import { conversationSeed } from '../authority/index.js';

/**
 * The agent role: run the loop on the instruction. One-shot, it ends with one `result`. Warm, each
 * turn ends with a `turn` frame and the session waits for the next injected message on the same
 * transcript; closing it (cancel or end of input while idle) sends a `result` that keeps the last
 * turn's answer rather than overwriting it with nothing.
 */
export async function runAgent(context: ChildContext): Promise<void> {
  const { payload, channel, writer } = context;
  const session = childSession(context, {
    tools: context.tools,
    system: agentSystemPrompt(payload, {
      structuredOutput: context.capture !== undefined,
      isolationMarker: isolationNote(payload),
    }),
    transcript: payload.resume?.transcript ?? [
      ...payload.history,
      ...seedTranscript(conversationSeed(payload), payload.instruction, Date.now()),
    ],
    resumed: payload.resume !== undefined,
    limits: payload.limits,
  });

  // The starting transcript is recorded first, so a crash at any later point can resume from it.
  if (payload.resume === undefined)
    for (const message of session.transcript) sendTranscript(writer, { op: 'append', message });
  // A resumed warm session whose last turn was answered (and announced) waits for its next message.
  const answered = payload.warm ? payload.resume?.answered : undefined;
  let last: Outcome;
  if (answered === undefined) {
    const report = await runTurnWithSwaps(context, session, undefined);
    if (!payload.warm) {
      writer.send({ type: 'result', outcome: report.outcome });
      return;
    }
    writer.send({ type: 'turn', outcome: report.outcome });
    last = report.outcome;
  } else {
    last = answered;
  }
  // A replayed warm session takes the messages it was sent from its record, then closes.
  const recorded = payload.replay === undefined ? undefined : turnInputs(payload.replay.transcript);
  while (!endsSession(last)) {
    const message =
      recorded === undefined ? await channel.injects.next(channel.signal) : recorded.shift();
    if (message === undefined) break;
    const report = await runTurnWithSwaps(context, session, {
      role: 'user',
      text: message,
      ts: Date.now(),
    });
    last = report.outcome;
    writer.send({ type: 'turn', outcome: last });
  }
  writer.send({ type: 'result', outcome: closingOutcome(last, channel.signal) });
}

/**
 * Runs one turn, applying a swap parked before it. A `restart-turn` swap that arrives during the
 * turn and changes the model discards the finished turn and runs it again on the new model from
 * the same pre-turn state.
 */
async function runTurnWithSwaps(
  context: ChildContext,
  session: AgentSession,
  input: Parameters<AgentSession['runTurn']>[0],
): Promise<TurnReport> {
  applyParkedSwap(context);
  for (;;) {
    const before = session.transcript.length;
    const model = context.model.model;
    const report = await session.runTurn(input, { signal: context.channel.signal });
    if (!context.channel.hasSwap || context.channel.signal.aborted) return report;
    const policy = applyParkedSwap(context);
    if (policy !== 'restart-turn' || context.model.model === model) return report;
    session.rewind(before);
    context.writer.event({
      type: 'turn.restarted',
      reason: 'intelligence swapped with restart-turn',
    });
  }
}

/** The boundary marker the system prompt explains, when untrusted content is fenced. */
export function isolationNote(payload: ChildContext['payload']): string | undefined {
  const { enabled, spotlight } = payload.content_isolation;
  return enabled && spotlight ? isolationMarker(payload) : undefined;
}

/**
 * The messages a warm session was sent after its first turn, in order, from its transcript: each
 * user message that follows an answer with no tool calls (the end of a turn).
 */
function turnInputs(transcript: readonly TranscriptMessage[]): string[] {
  return transcript.flatMap((message, index) => {
    const before = transcript[index - 1];
    return message.role === 'user' && before?.role === 'assistant' && before.tool_calls.length === 0
      ? [message.text]
      : [];
  });
}

/** Turn outcomes after which a warm session does not take another message. */
function endsSession(outcome: Outcome): boolean {
  return outcome.status === 'cancelled' || outcome.status === 'stalled';
}

function closingOutcome(last: Outcome, signal: AbortSignal): Outcome {
  if (last.status !== 'completed') return last;
  const reason = signal.aborted ? `session closed: ${String(signal.reason)}` : 'session closed';
  return { ...last, reason };
}
