import { formatIssues, TranscriptMessageSchema, type AgentFrame } from '../../protocol/index.js';
import {
  AskHumanArgs,
  EGRESS_APPROVAL,
  EgressApprovalArgs,
  HISTORY_ARG,
  internalToolArgs,
  MemoryDeleteArgs,
  MemoryGetArgs,
  MemoryListArgs,
  MemorySetArgs,
  SleepArgs,
  SubagentAwaitArgs,
  SubagentKillArgs,
  SubagentRunArgs,
  SubagentSendArgs,
  SubagentStatusArgs,
} from '../../tools/index.js';
import type { HumanGates } from '../gates/human-gates.js';
import type { LiveNode } from '../node/live-node.js';
import { sleep } from '../sleep.js';
import type { RunStore } from '../../store/store-port.js';
import { memoryTools } from './memory-tools.js';
import { subagentTools, type SubagentApi } from './subagent-tools.js';
import { fail, ok, type ToolAnswer } from './tool-answer.js';

type ToolRequest = Extract<AgentFrame, { type: 'tool_request' }>;

const HistorySchema = TranscriptMessageSchema.array();

export interface InternalToolContext {
  subagents: SubagentApi;
  store: RunStore;
  humans: HumanGates;
  now(): number;
}

/**
 * Serves the internal tools a child sends up as `tool_request`. Arguments are validated here,
 * where they arrive, whatever the child checked: a bad one is a tool error naming the field.
 */
export async function serveInternal(
  context: InternalToolContext,
  caller: LiveNode,
  frame: ToolRequest,
): Promise<ToolAnswer> {
  if (frame.name === EGRESS_APPROVAL) return approveEgress(context, caller, frame);
  const schema = internalToolArgs(frame.name);
  if (schema === undefined)
    return fail(`The supervisor does not serve a tool named \`${frame.name}\`.`);
  const { [HISTORY_ARG]: history, ...args } = frame.args;
  const parsed = schema.safeParse(args, { reportInput: true });
  if (!parsed.success)
    return fail(`Invalid arguments for \`${frame.name}\`: ${formatIssues(parsed.error.issues)}.`);
  const { subagents, store } = context;
  const now = context.now();
  switch (frame.name) {
    case 'subagent.run': {
      const forked = HistorySchema.safeParse(history ?? []);
      if (!forked.success)
        return fail(
          `Invalid \`${HISTORY_ARG}\` from the child runtime: ${formatIssues(forked.error.issues)}.`,
        );
      return subagentTools.run(subagents, caller, SubagentRunArgs.parse(parsed.data), forked.data);
    }
    case 'subagent.send':
      return subagentTools.send(subagents, caller, SubagentSendArgs.parse(parsed.data));
    case 'subagent.kill':
      return subagentTools.kill(subagents, caller, SubagentKillArgs.parse(parsed.data));
    case 'subagent.status':
      return subagentTools.status(subagents, caller, SubagentStatusArgs.parse(parsed.data));
    case 'subagent.await':
      return subagentTools.await(subagents, caller, SubagentAwaitArgs.parse(parsed.data));
    case 'subagent.list':
      return subagentTools.list(subagents, caller);
    case 'memory.get':
      return memoryTools.get(store, MemoryGetArgs.parse(parsed.data), now);
    case 'memory.set':
      return memoryTools.set(store, MemorySetArgs.parse(parsed.data), now);
    case 'memory.list':
      return memoryTools.list(store, MemoryListArgs.parse(parsed.data), now);
    case 'memory.delete':
      return memoryTools.delete(store, MemoryDeleteArgs.parse(parsed.data));
    case 'sleep': {
      const { ms } = SleepArgs.parse(parsed.data);
      await sleep(ms, { signal: caller.stopped.signal });
      return caller.stopped.signal.aborted
        ? fail('Sleep interrupted: the node is stopping.')
        : ok(`Slept ${ms} ms.`);
    }
    case 'ask_human': {
      const args = AskHumanArgs.parse(parsed.data);
      const answer = await context.humans.ask(
        caller.node.id,
        args.question,
        args.choices === undefined ? {} : { choices: args.choices },
        {
          signal: caller.stopped.signal,
        },
      );
      return answer.answered ? ok({ answer: answer.answer }) : fail(`No answer: ${answer.reason}.`);
    }
    default:
      return fail(`The supervisor does not serve a tool named \`${frame.name}\`.`);
  }
}

/**
 * A child's runtime asks whether an egress call the runtime trifecta holds may go: a person is
 * asked (at the terminal, through `arbor gate answer`, or nobody under `--ask-fallback fail`, which
 * refuses at once). The answer is `{approved, reason}`; only a yes lets the call through.
 */
async function approveEgress(
  context: InternalToolContext,
  caller: LiveNode,
  frame: ToolRequest,
): Promise<ToolAnswer> {
  const parsed = EgressApprovalArgs.safeParse(frame.args, { reportInput: true });
  if (!parsed.success)
    return fail(`Invalid \`${EGRESS_APPROVAL}\` request: ${formatIssues(parsed.error.issues)}.`);
  const { tool, args, reason } = parsed.data;
  const shown = JSON.stringify(args);
  const question =
    `Agent ${caller.node.path} wants to call \`${tool}\` with ${shown.length > 300 ? `${shown.slice(0, 300)}…` : shown}, ` +
    `but ${reason}. Allow it?`;
  const answer = await context.humans.ask(
    caller.node.id,
    question,
    { tool, args, choices: ['yes', 'no'], kind: 'runtime_trifecta' },
    { signal: caller.stopped.signal },
  );
  const approved = answer.answered && isYes(answer.answer);
  return ok({
    approved,
    reason: approved
      ? 'approved'
      : answer.answered
        ? `the answer was "${answer.answer}"`
        : `nobody approved it (${answer.reason})`,
  });
}

/** The words that approve a gate. */
export function isYes(answer: string): boolean {
  return /^(y|yes|allow|approve|approved|ok)$/i.test(answer.trim());
}
