import path from 'node:path';
import {
  leaves,
  PlanWorktrees,
  runLogPath,
  runSchedule,
  RunLogWriter,
  type MergeReport,
  type FailurePolicy,
  type Plan,
  type ScheduleSummary,
  stringifyPlan,
  type Subtask,
} from '../plan/index.js';
import { toStoredEvent, type Usage } from '../protocol/index.js';
import { killAtOf, type RunStore, type Supervisor } from '../supervisor/index.js';
import { leafDispatcher, type VerifyGate } from './plan-leaf.js';
import { recordRunLog } from './run-log.js';
import { mintRunId } from './run-id.js';
import { worktreeGit } from './worktree-git.js';
import { rootTemplate, type Runtime, type RunStart } from './runtime.js';

/** What running a plan takes beyond a run's start. */
export interface PlanStart extends RunStart {
  /** The plan file (its run-log is written next to it). */
  file: string;
  plan: Plan;
  concurrency: number;
  onFailure: FailurePolicy;
  verifyTimeoutMs: number;
  /** Each leaf in its own git worktree, merged back at the end. */
  worktrees: boolean;
  /** Provider for every leaf (default `process`). */
  provider: 'process' | 'spawn' | 'fork' | 'queue' | undefined;
  /**
   * `runId` names an interrupted run of this plan, continued rather than recorded anew: its
   * recorded tree is rebuilt, leaves that had finished keep their results, and leaves that were
   * running are re-spawned from their transcripts (see `Runtime.continuePlan`).
   */
  continues?: boolean;
  /**
   * Where leaves' authority resolves and their tools run; default: the runtime's directory. A
   * replay under recorded tool results takes the recorded run's, so its leaves hold what they held.
   */
  cwd?: string;
  /** Where the run-log is written; default: next to `file` (see `runLogPath`). */
  logPath?: string;
  /**
   * How each leaf's verify gate is run (a replay serves recorded outcomes); default: the command
   * runs. Either way the outcome is recorded as a `plan.verify` event on the leaf's node.
   */
  verify?: VerifyGate;
}

/** How a plan run ended. */
export interface PlanEnd {
  runId: string;
  status: 'completed' | 'failed' | 'cancelled';
  logPath: string;
  plan: Plan;
  summary: ScheduleSummary;
  merge: MergeReport | undefined;
  usage: Usage;
  leafNodes: Map<string, { node_id: string; usage: Usage }>;
}

export interface StartedPlan {
  runId: string;
  supervisor: Supervisor;
  logPath: string;
  /** Stops scheduling; leaves running are cancelled. The plan ends `cancelled`. */
  stop(reason: string): void;
  done: Promise<PlanEnd>;
}

/**
 * Starts a plan: its node holds the run's grant, its leaves are spawned under it through the
 * chokepoint as the scheduler frees them, and the run-log is rewritten after every transition
 * (its digest recorded in the store before each rename). A directory that is not a repository
 * under `worktrees` is refused before anything is recorded.
 */
export async function startPlan(runtime: Runtime, start: PlanStart): Promise<StartedPlan> {
  const { plan, config } = start;
  const logPath = start.logPath ?? runLogPath(start.file);
  const count = leaves(plan).length;
  const runId = start.runId ?? mintRunId();
  const cwd = start.cwd ?? runtime.cwd;
  const worktrees = start.worktrees
    ? await PlanWorktrees.open(cwd, runId, worktreeGit(start, runtime.env, cwd))
    : undefined;
  const { store } = runtime;
  const continued =
    start.continues === true
      ? runtime.continuePlan(runId, rootTemplate(start), {
          deadlineMs: config.deadlineMs,
          // A leaf's edits were in its worktree, made afresh: it starts over, not from its record.
          startOver: start.worktrees,
          // Leaves the run-log has failed or cancelled run again: their records do not stand.
          retry: leaves(plan)
            .filter((leaf) => leaf.status === 'failed' || leaf.status === 'cancelled')
            .map((leaf) => leaf.instruction),
        })
      : undefined;
  if (continued === undefined)
    store.createRun({
      id: runId,
      instruction: config.instruction,
      status: 'running',
      createdAt: Date.now(),
      meta: {
        ...start.meta,
        plan: path.resolve(start.file),
        run_log: path.resolve(logPath),
        // Where its leaves' relative paths resolve: a replay elsewhere holds them to it.
        cwd,
        // What a replay runs again: the plan as this run began it, and how it was scheduled.
        plan_source: stringifyPlan(plan),
        plan_options: {
          concurrency: start.concurrency,
          on_failure: start.onFailure,
          worktrees: start.worktrees,
          verify_timeout_ms: start.verifyTimeoutMs,
        },
      },
    });
  // Leaves are the plan's children: the plan's own concurrency bounds how many run at once.
  const supervisor = runtime.supervise(
    start,
    runId,
    // A continued run's recorded nodes count toward its total: its leaves get room to run again.
    {
      breadth: start.concurrency,
      total: count + (continued?.state.nodes.length ?? 0),
      rate: count,
    },
    continued?.state,
  );
  const stop = new AbortController();
  const nodes = new Map<string, string>();
  plan.run = runId;
  const log = new RunLogWriter(logPath, plan, (text) => {
    recordRunLog(store, runId, logPath, text);
  });
  log.update().catch(() => undefined);
  const planNode = supervisor.openPlan(continued?.template ?? rootTemplate(start));

  const run = async (): Promise<PlanEnd> => {
    let summary: ScheduleSummary;
    let merge: MergeReport | undefined;
    try {
      await log.flush();
      summary = await runSchedule(plan, {
        concurrency: start.concurrency,
        onFailure: start.onFailure,
        signal: stop.signal,
        dispatch: leafDispatcher({
          nodes,
          supervisor,
          planNode,
          plan,
          grant: config.grant,
          cwd,
          env: runtime.env,
          verifyTimeoutMs: start.verifyTimeoutMs,
          worktrees,
          provider: start.provider,
          verify: recordedVerify(store, runId, start.verify),
        }),
        // Not awaited: the scheduler goes on while the log is written; every transition is on
        // disk after the next rewrite.
        onTransition: (changed) => {
          void log.update().then(
            () => {
              killPoint(runtime.env, changed);
            },
            () => undefined,
          );
        },
      });
      await log.flush();
      if (worktrees !== undefined && !stop.signal.aborted) {
        const done = leaves(plan).flatMap((leaf) =>
          leaf.status === 'done' && leaf.artifact_ref?.commit !== undefined
            ? [{ id: leaf.id, commit: leaf.artifact_ref.commit }]
            : [],
        );
        merge = await worktrees.mergeAll(done);
      }
    } catch (error) {
      await supervisor.stopAll('the plan run failed');
      await supervisor.closePlan(planNode, 'crashed');
      store.finishRun(runId, 'crashed', Date.now());
      throw error;
    } finally {
      await worktrees?.close();
    }
    const ok = summary.done === count && (merge?.conflicts.length ?? 0) === 0;
    const status = stop.signal.aborted ? 'cancelled' : ok ? 'completed' : 'failed';
    await supervisor.closePlan(planNode, status);
    store.finishRun(runId, status, Date.now());
    const leafNodes = new Map(
      [...nodes].map(([leaf, id]) => [leaf, { node_id: id, usage: supervisor.subtreeUsage(id) }]),
    );
    return {
      runId,
      status,
      logPath,
      plan,
      summary,
      merge,
      usage: supervisor.subtreeUsage(planNode.node.id),
      leafNodes,
    };
  };
  const done = run();
  runtime.track(supervisor, done);
  return {
    runId,
    supervisor,
    logPath,
    stop: (reason) => {
      stop.abort(reason);
    },
    done,
  };
}

/** A leaf's verify gate, run (or served) as `verify` says and recorded as `plan.verify`. */
function recordedVerify(
  store: RunStore,
  runId: string,
  verify: VerifyGate | undefined,
): VerifyGate {
  return async (leaf, nodeId, run) => {
    const gate = await (verify === undefined ? run() : verify(leaf, nodeId, run));
    store.appendEvent({
      runId,
      nodeId,
      ts: Date.now(),
      ...toStoredEvent({
        type: 'plan.verify',
        leaf: leaf.id,
        passed: gate === undefined,
        ...(gate?.result === undefined ? {} : { result: gate.result }),
      }),
    });
    return gate;
  };
}

/**
 * Crash-recovery tests: `ARBOR_TEST_KILL_AT=plan.<status>:<id>` (with `ARBOR_TEST_MODE=chaos`)
 * kills this process with SIGKILL right after the run-log records that subtask in that status.
 */
function killPoint(env: NodeJS.ProcessEnv, changed: readonly Subtask[]): void {
  const at = killAtOf(env);
  if (!at?.startsWith('plan.')) return;
  if (changed.some((subtask) => at === `plan.${subtask.status}:${subtask.id}`))
    process.kill(process.pid, 'SIGKILL');
}
