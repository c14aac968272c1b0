import type { TurnSpec } from '../protocol/index.js';
import type { ChildContext } from './child-context.js';
import { childSession } from './child-session.js';
import { isolationNote } from './run-agent.js';
import { turnTools } from './turn-tools.js';
import { isolationPrompt } from '../tools/content/index.js';

/**
 * The turn-worker role: run one turn over the transcript slice the supervisor handed over, with
 * the tools it listed, and end with `turn_done` carrying the delta, the answer and the usage.
 */
export async function runTurnWorker(context: ChildContext, turn: TurnSpec): Promise<void> {
  const { payload, writer } = context;
  const session = childSession(context, {
    tools: turnTools(turn, context.tools, context.channel, writer),
    system: withIsolationNote(turn.system, isolationNote(payload)),
    transcript: turn.messages,
    limits: { ...payload.limits, max_steps: turn.max_rounds ?? payload.limits.max_steps },
    admission: turn.budget_admission,
  });
  const report = await session.runTurn(undefined, { signal: context.channel.signal });
  writer.send({
    type: 'turn_done',
    turn: {
      turn_id: turn.turn_id,
      status: report.outcome.status,
      messages: report.messages,
      ...(report.text === undefined ? {} : { text: report.text }),
      ...(context.capture?.committed === true ? { value: context.capture.value } : {}),
      usage: report.usage,
      rounds: report.rounds,
      tool_calls: report.toolCalls,
      ...(report.outcome.reason === undefined || report.outcome.status === 'completed'
        ? {}
        : { error: report.outcome.reason }),
      ...(report.finish === undefined ? {} : { finish: report.finish }),
    },
  });
}

/** The supervisor's system prompt for the turn, with the boundary explained when content is fenced. */
function withIsolationNote(system: string, marker: string | undefined): string {
  return marker === undefined ? system : `${system}\n\n${isolationPrompt(marker)}`;
}
