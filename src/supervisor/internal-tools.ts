import { z } from 'zod';
import { formatIssues, type AgentFrame } from '../protocol/index.js';

type ToolRequest = Extract<AgentFrame, { type: 'tool_request' }>;

const SleepArgs = z.object({ ms: z.number().int().min(0).max(600_000) });

/**
 * Serves the internal tools a child sends up as `tool_request`. A tool the supervisor does not
 * serve, or arguments that do not fit, come back as a tool error the model can read.
 */
export async function serveInternalTool(
  frame: ToolRequest,
  signal: AbortSignal,
): Promise<{ result: unknown; is_error: boolean }> {
  switch (frame.name) {
    case 'sleep': {
      const args = SleepArgs.safeParse(frame.args);
      if (!args.success)
        return {
          result: `Invalid arguments for \`sleep\`: ${formatIssues(args.error.issues)}`,
          is_error: true,
        };
      await sleep(args.data.ms, signal);
      return {
        result: signal.aborted
          ? 'Sleep interrupted: the node is stopping.'
          : `Slept ${args.data.ms} ms.`,
        is_error: signal.aborted,
      };
    }
    default:
      return {
        result: `The supervisor does not serve a tool named \`${frame.name}\`.`,
        is_error: true,
      };
  }
}

function sleep(ms: number, signal: AbortSignal): Promise<void> {
  return new Promise((resolve) => {
    if (signal.aborted) {
      resolve();
      return;
    }
    const done = (): void => {
      clearTimeout(timer);
      signal.removeEventListener('abort', done);
      resolve();
    };
    const timer = setTimeout(done, ms);
    signal.addEventListener('abort', done, { once: true });
  });
}
