import type { RequestTaskStore } from '@modelcontextprotocol/sdk/shared/protocol.js';
import type { CallToolResult } from '@modelcontextprotocol/sdk/types.js';
import type { RunHandle, RunResult } from '../../api/run-handle.js';
import type { ArborEvent } from '../../runtime/index.js';

/** A question of the run's `ask_human`, put to the caller. */
export interface CallerQuestion {
  question: string;
  choices?: string[];
}

/** What a run's task reports through, to its caller and its record. */
export interface McpRunPorts {
  taskStore: RequestTaskStore;
  /** The caller sent a progress token: the live tree and its usage go to it. */
  progress?(progress: number, message: string, meta: Record<string, unknown>): Promise<void>;
  /** The caller can answer questions (elicitation): its answer, or undefined when it gave none. */
  ask?: ((question: CallerQuestion) => Promise<string | undefined>) | undefined;
  /** Where the caps held the caller's request, said in the result. */
  held: readonly string[];
}

/**
 * One caller's run, followed as a task: the live tree's status and usage go out as progress, the
 * run's own questions (`ask_human`) to the caller as elicitations, and its end into the task's
 * record as the tool's result. Security questions (a policy `ask`, egress, the trifecta) carry a
 * `tool` or a `kind` and are never put to the caller: they wait as `arbor serve`'s do.
 */
export async function followRun(
  handle: RunHandle,
  taskId: string,
  ports: McpRunPorts,
): Promise<void> {
  const tree = new Map<string, { path: string; status: string }>();
  const usage = { tokens: 0, usd: 0 };
  let sent = 0;
  for await (const event of handle.events) {
    if (!foldEvent(event, tree, usage)) continue;
    if (event.type === 'gate.opened' && ports.ask !== undefined && isCallerQuestion(event))
      void askCaller(handle, taskId, event, ports, ports.ask);
    if (ports.progress !== undefined) {
      const nodes = [...tree.values()].sort((a, b) => a.path.localeCompare(b.path));
      const message = `${nodes.map((n) => `${n.path} ${n.status}`).join(', ')} · ${usage.tokens} tokens, $${usage.usd.toFixed(4)}`;
      await ports
        .progress(++sent, message, { 'arbor/tree': nodes, 'arbor/usage': { ...usage } })
        .catch(() => undefined);
    }
  }
  let result: CallToolResult;
  try {
    result = callResultOf(await handle.result, ports.held);
  } catch (error) {
    result = {
      content: [{ type: 'text', text: `The run could not start: ${messageOf(error)}` }],
      isError: true,
    };
  }
  await ports.taskStore
    .storeTaskResult(taskId, result.isError === true ? 'failed' : 'completed', result)
    .catch(() => undefined);
}

/** Folds an event into the live tree and usage; true when the caller would want to hear of it. */
function foldEvent(
  event: ArborEvent,
  tree: Map<string, { path: string; status: string }>,
  usage: { tokens: number; usd: number },
): boolean {
  const node =
    event.nodeId === undefined ? undefined : { id: event.nodeId, path: event.path ?? '?' };
  if (event.type === 'node.spawned') {
    if (node !== undefined) tree.set(node.id, { path: node.path, status: 'starting' });
  } else if (event.type === 'node.status' || event.type === 'node.end') {
    if (node !== undefined) tree.set(node.id, { path: node.path, status: event.status });
  } else if (event.type === 'usage') {
    usage.tokens += event.inputTokens + event.outputTokens;
    usage.usd += event.costUsd ?? 0;
  } else return event.type === 'gate.opened';
  return true;
}

/** An `ask_human` question: no tool it approves, no kind of security hold. */
function isCallerQuestion(event: ArborEvent & { type: 'gate.opened' }): boolean {
  return event.gate !== undefined && event.tool === undefined && !('kind' in event);
}

async function askCaller(
  handle: RunHandle,
  taskId: string,
  event: ArborEvent & { type: 'gate.opened' },
  ports: McpRunPorts,
  ask: NonNullable<McpRunPorts['ask']>,
): Promise<void> {
  const gate = event.gate ?? '';
  const question = event.question ?? '';
  await ports.taskStore.updateTaskStatus(taskId, 'input_required', question).catch(() => undefined);
  let answer: string | undefined;
  try {
    answer = await ask({
      question,
      ...(event.choices === undefined ? {} : { choices: event.choices }),
    });
  } catch {
    // The caller could not answer (it went away, or failed): the gate waits as serve's do.
    answer = undefined;
  }
  await ports.taskStore.updateTaskStatus(taskId, 'working').catch(() => undefined);
  try {
    handle.answerGate(gate, answer ?? 'The caller declined to answer.');
  } catch {
    // Answered meanwhile (`arbor gate answer`), or the run ended: nothing is left to answer.
  }
}

/** The tool's result: the answer, the structured output, usage and cost, and what the caps held. */
function callResultOf(result: RunResult, held: readonly string[]): CallToolResult {
  const usage = result.subtreeUsage;
  const tokens = usage.input_tokens + usage.output_tokens;
  const cost = usage.cost_usd === undefined ? '' : `, $${usage.cost_usd.toFixed(4)}`;
  const summary = [
    `run ${result.runId} ${result.status}${result.reason === undefined ? '' : `: ${result.reason}`} · ${tokens} tokens${cost}`,
    ...held.map((line) => `held to the server's cap: ${line}`),
  ].join('\n');
  return {
    content: [
      {
        type: 'text',
        text: result.text === '' ? `(no answer: the run ${result.status})` : result.text,
      },
      { type: 'text', text: summary },
    ],
    structuredContent: {
      run_id: result.runId,
      status: result.status,
      answer: result.text,
      ...(result.structured === undefined ? {} : { output: result.structured }),
      ...(result.reason === undefined ? {} : { reason: result.reason }),
      usage,
      held: [...held],
    },
    isError: result.status !== 'completed',
  };
}

function messageOf(error: unknown): string {
  return error instanceof Error ? error.message : String(error);
}
