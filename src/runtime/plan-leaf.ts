import {
  runVerifyGate,
  type LeafOutcome,
  type Plan,
  type PlanWorktrees,
  type Subtask,
} from '../plan/index.js';
import path from 'node:path';
import type { Caveats, ProtectedPath } from '../protocol/index.js';
import { cut, type LiveNode, type Supervisor } from '../supervisor/index.js';
import { leafCaveats } from '../authority/index.js';

export interface LeafDispatchOptions {
  supervisor: Supervisor;
  /** The plan's node: leaves are its children, and it holds the run's grant. */
  planNode: LiveNode;
  plan: Plan;
  /** The run's grant (`parent` in `parent ⊓ policy`). */
  grant: Caveats;
  cwd: string;
  env: NodeJS.ProcessEnv;
  verifyTimeoutMs: number;
  /** Each leaf in its own git worktree (`--worktrees`). */
  worktrees: PlanWorktrees | undefined;
  /** Provider for every leaf (`--provider`; default `process`). */
  provider: 'process' | 'spawn' | 'fork' | 'queue' | undefined;
  /** Filled in as leaves start: the node that ran each leaf (its last attempt), by leaf id. */
  nodes: Map<string, string>;
  /** How a leaf's verify gate is run and recorded (see `VerifyGate`). */
  verify: VerifyGate;
}

/**
 * Runs a leaf's verify gate for the leaf's node `nodeId`: `run` runs the command; a replay may
 * serve its recorded outcome instead. Undefined when it passed, else the leaf's failure.
 */
export type VerifyGate = (
  leaf: Subtask,
  nodeId: string,
  run: () => Promise<LeafOutcome | undefined>,
) => Promise<LeafOutcome | undefined>;

/** Bytes of a dependency's result a dependent leaf is shown. */
const DEP_RESULT_BYTES = 2_000;

/**
 * Runs one plan leaf: its authority is `grant ⊓ caveat_policy` with its write lane folded into
 * `fs_write`, it is spawned through the supervisor's chokepoint as a child of the plan's node
 * (caller kind `plan`), its verify gate runs after it, and with worktrees its changes are
 * committed on its own branch. A leaf sees its deps' results as context, never anything else.
 */
export function leafDispatcher(
  options: LeafDispatchOptions,
): (leaf: Subtask, signal: AbortSignal) => Promise<LeafOutcome> {
  const byId = new Map(options.plan.subtask.map((subtask) => [subtask.id, subtask]));
  return async (leaf, signal) => {
    if (signal.aborted) return { status: 'cancelled', result: 'cancelled before it started' };
    const bases = leaf.deps
      .map((dep) => byId.get(dep)?.artifact_ref?.commit)
      .filter((commit): commit is string => commit !== undefined);
    const cwd = (await options.worktrees?.prepare(leaf.id, bases)) ?? options.cwd;
    const caveats = leafCaveats(options.grant, leaf, { cwd });
    // In its own worktree, a leaf must not repoint `.git` at a directory of its own, whose config
    // would then drive arbor's git (filters, hooks) when the leaf's work is committed.
    const protect: ProtectedPath[] =
      options.worktrees === undefined
        ? []
        : [{ path: path.join(cwd, '.git'), kind: 'file', readable: true }];
    const context = leaf.deps.flatMap((dep) => {
      const result = byId.get(dep)?.result;
      return result === undefined
        ? []
        : [
            {
              role: 'user' as const,
              content: `Result of \`${dep}\`:\n${cut(result, DEP_RESULT_BYTES)}`,
            },
          ];
    });
    const spawned = await options.supervisor.spawnChild(
      options.planNode,
      {
        instruction: leaf.instruction,
        caveats,
        ...(context.length === 0 ? {} : { context }),
        ...(options.provider === undefined ? {} : { provider: options.provider }),
      },
      [],
      // Only a leaf in a worktree has a directory of its own; the others may run anywhere (a
      // pooled child, a fleet worker).
      { mode: 'plan', ...(options.worktrees === undefined ? {} : { cwd }), protect },
    );
    if (!spawned.ok) return { status: 'failed', result: `refused: ${spawned.reason}` };
    const { child } = spawned;
    options.nodes.set(leaf.id, child.node.id);
    const cancel = (): void => {
      options.supervisor.send(child.node.id, { type: 'cancel', reason: 'the plan run stopped' });
    };
    signal.addEventListener('abort', cancel, { once: true });
    let end;
    try {
      end = await child.ended();
    } finally {
      signal.removeEventListener('abort', cancel);
    }
    const { outcome } = end;
    const text = resultText(outcome.result);
    const refused = child.node.refusedCalls;
    const counted = refused === undefined ? {} : { refused_calls: refused };
    // Read again: the run may have been stopped while the leaf ran.
    if (isAborted(signal)) return { status: 'cancelled', result: text ?? 'cancelled', ...counted };
    if (outcome.status !== 'completed') {
      const why = outcome.reason ?? end.error?.message ?? 'no reason given';
      return {
        status: 'failed',
        result: `${outcome.status}: ${why}${text === undefined ? '' : `\npartial result: ${text}`}`,
        ...counted,
      };
    }
    if (leaf.verify !== undefined) {
      const command = leaf.verify;
      const gate = await options.verify(leaf, child.node.id, async () => {
        const failed = await runVerifyGate(command, {
          cwd,
          caveats,
          timeoutMs: options.verifyTimeoutMs,
          env: options.env,
          sandbox: options.planNode.payload.sandbox,
          protect: [...options.planNode.payload.protected_paths, ...protect],
          signal,
        });
        // A failed check's output is shown (the report, the run-log): it may print a secret.
        return failed === undefined ? undefined : options.supervisor.scrubber.deep(failed);
      });
      if (gate !== undefined) return { ...gate, ...counted };
    }
    const artifact = await options.worktrees?.commit(leaf.id, cwd);
    return {
      status: 'done',
      result: text ?? '',
      ...(artifact === undefined ? {} : { artifact_ref: artifact }),
      ...counted,
    };
  };
}

function resultText(result: unknown): string | undefined {
  if (result === null || result === undefined) return undefined;
  return typeof result === 'string' ? result : JSON.stringify(result);
}

function isAborted(signal: AbortSignal): boolean {
  return signal.aborted;
}
