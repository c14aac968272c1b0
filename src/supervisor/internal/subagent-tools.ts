import type { z } from 'zod';
import type { Outcome, TranscriptMessage, Usage } from '../../protocol/index.js';
import type {
  SubagentAwaitArgs,
  SubagentKillArgs,
  SubagentRunArgs,
  SubagentSendArgs,
  SubagentStatusArgs,
} from '../../tools/index.js';
import type { ChildEnd } from '../node/child-end.js';
import { distillResult } from '../node/distill.js';
import type { LiveNode } from '../node/live-node.js';
import { fail, ok, type ToolAnswer } from './tool-answer.js';

/** What the `subagent.*` tools need from the supervisor. */
export interface SubagentApi {
  /** Spawns through the chokepoint; a refusal names the limit or rule. */
  spawn(
    caller: LiveNode,
    args: SubagentRunArgs,
    history: TranscriptMessage[],
  ): Promise<{ ok: true; child: LiveNode } | { ok: false; reason: string }>;
  /** The caller's direct children. */
  children(caller: LiveNode): LiveNode[];
  /** Stops a node and its subtree, deepest first. */
  stopSubtree(target: LiveNode, reason: string): Promise<void>;
  inject(target: LiveNode, message: string): boolean;
  subtreeUsage(target: LiveNode): Usage;
}

function childOf(api: SubagentApi, caller: LiveNode, handle: string): LiveNode | ToolAnswer {
  const found = api.children(caller).find((c) => c.node.id === handle);
  if (found !== undefined) return found;
  const yours =
    api
      .children(caller)
      .map((c) => `\`${c.node.id}\``)
      .join(', ') || 'none';
  return fail(`No sub-agent \`${handle}\` among yours (yours: ${yours}).`);
}

function isAnswer(value: LiveNode | ToolAnswer): value is ToolAnswer {
  return 'is_error' in value;
}

/** A child's result as its parent sees it: status, distilled result, own and subtree usage. */
function report(api: SubagentApi, target: LiveNode, outcome: Outcome, end?: ChildEnd): ToolAnswer {
  const body = {
    handle: target.node.id,
    status: outcome.status,
    result: distillResult(outcome.result),
    ...(outcome.reason === undefined ? {} : { reason: outcome.reason }),
    ...(end?.error === undefined ? {} : { error: end.error.message }),
    usage: target.node.usage,
    subtree_usage: api.subtreeUsage(target),
  };
  // A failed child is an error result, never "success with an empty text". What the child took
  // in goes up with its answer: a parent reading what an exposed child wrote is exposed too.
  const taint = target.node.trajectory ?? target.payload.inherited_taint;
  return {
    result: body,
    is_error: outcome.status !== 'completed',
    ...(taint?.exposed === true || taint?.sensitive === true
      ? { taint: { exposed: taint.exposed, sensitive: taint.sensitive } }
      : {}),
  };
}

export const subagentTools = {
  async run(
    api: SubagentApi,
    caller: LiveNode,
    args: SubagentRunArgs,
    history: TranscriptMessage[],
  ): Promise<ToolAnswer> {
    const spawned = await api.spawn(caller, args, history);
    if (!spawned.ok) return fail(`subagent.run refused: ${spawned.reason}`);
    const target = spawned.child;
    if (target.mode !== 'sync')
      return ok({ handle: target.node.id, status: 'running', mode: target.mode });
    const end = await target.waitFor({ signal: caller.stopped.signal });
    if (end === undefined || !('via' in end)) {
      await api.stopSubtree(target, 'the caller stopped');
      return fail(`subagent.run: the caller stopped before \`${target.node.id}\` finished`);
    }
    return report(api, target, end.outcome, end);
  },

  async await(
    api: SubagentApi,
    caller: LiveNode,
    args: z.infer<typeof SubagentAwaitArgs>,
  ): Promise<ToolAnswer> {
    const target = childOf(api, caller, args.handle);
    if (isAnswer(target)) return target;
    const started = Date.now();
    // A warm sub-agent is awaited turn by turn: each await returns its next unread answer.
    const turn = target.mode === 'warm' ? (target.awaited += 1) : undefined;
    const done = await target.waitFor({
      ...(turn === undefined ? {} : { turn }),
      ...(args.timeout_ms === undefined ? {} : { timeoutMs: args.timeout_ms }),
      signal: caller.stopped.signal,
    });
    if (done === undefined) {
      if (turn !== undefined) target.awaited -= 1;
      return ok({
        handle: target.node.id,
        status: 'running',
        timed_out: true,
        waited_ms: Date.now() - started,
      });
    }
    if ('via' in done) return report(api, target, done.outcome, done);
    return report(api, target, done);
  },

  send(api: SubagentApi, caller: LiveNode, args: z.infer<typeof SubagentSendArgs>): ToolAnswer {
    const target = childOf(api, caller, args.handle);
    if (isAnswer(target)) return target;
    if (target.mode !== 'warm')
      return fail(
        `\`${args.handle}\` is not a warm sub-agent: start it with mode "warm" to send it messages.`,
      );
    if (!target.isLive || !api.inject(target, args.message))
      return fail(`\`${args.handle}\` has ended; it takes no more messages.`);
    return ok({ handle: target.node.id, delivered: true });
  },

  async kill(
    api: SubagentApi,
    caller: LiveNode,
    args: z.infer<typeof SubagentKillArgs>,
  ): Promise<ToolAnswer> {
    const target = childOf(api, caller, args.handle);
    if (isAnswer(target)) return target;
    if (target.isLive) await api.stopSubtree(target, args.reason ?? `stopped by ${caller.node.id}`);
    return ok({ handle: target.node.id, status: target.node.status });
  },

  status(api: SubagentApi, caller: LiveNode, args: z.infer<typeof SubagentStatusArgs>): ToolAnswer {
    const target = childOf(api, caller, args.handle);
    if (isAnswer(target)) return target;
    const last = target.end?.outcome ?? target.turns.at(-1);
    return ok({
      handle: target.node.id,
      path: target.node.path,
      status: target.node.status,
      mode: target.mode,
      provider: target.provider,
      steps: target.node.steps,
      usage: target.node.usage,
      subtree_usage: api.subtreeUsage(target),
      ...(last === undefined
        ? {}
        : {
            result: distillResult(last.result),
            ...(last.reason === undefined ? {} : { reason: last.reason }),
          }),
    });
  },

  list(api: SubagentApi, caller: LiveNode): ToolAnswer {
    return ok(
      api.children(caller).map((c) => ({
        handle: c.node.id,
        status: c.node.status,
        mode: c.mode,
        instruction:
          c.node.instruction.length > 80
            ? `${c.node.instruction.slice(0, 79)}…`
            : c.node.instruction,
      })),
    );
  },
};
