import { existsSync, mkdirSync } from 'node:fs';
import path from 'node:path';
import {
  FAILURE_POLICIES,
  parsePlanToml,
  validatePlan,
  type FailurePolicy,
  type LeafOutcome,
  type Plan,
} from '../plan/index.js';
import { ArborError, toStoredEvent } from '../protocol/index.js';
import {
  mintRunId,
  preparePlan,
  startPlan,
  type PlanStart,
  type Runtime,
  type StartedPlan,
} from '../runtime/index.js';
import type { RunStore } from '../supervisor/index.js';
import { replayCaveats, replayMeta, replaySource, type ReplayRequest } from './replay-run.js';
import type { StoreReplaySource } from './store-replay-source.js';

/** A recorded plan run as a replay runs it again: the plan as the run began it, and its options. */
export interface RecordedPlan {
  /** The plan file the run was started from (its path on the machine that recorded it). */
  file: string;
  plan: Plan;
  concurrency: number;
  onFailure: FailurePolicy;
  verifyTimeoutMs: number;
  /** The directory the run was recorded in, when it says. */
  cwd: string | undefined;
  /** What the replay could not take from the record. */
  notes: string[];
}

/** What a plan run used when its run recorded no options (an older arbor): `plan run`'s defaults. */
const DEFAULT_OPTIONS = { concurrency: 4, onFailure: 'stop', verifyTimeoutMs: 300_000 } as const;

/**
 * The plan a recorded plan run began with, from its record (`plan_source`, `plan_options`); a run
 * recorded by an older arbor takes the plan file it names, as that file is now (a note says so).
 * A plan run whose leaves ran in git worktrees is refused: its leaves' records name worktrees
 * that a replay does not make.
 */
export async function recordedPlan(
  store: Pick<RunStore, 'getRun'>,
  runId: string,
): Promise<RecordedPlan> {
  const meta = store.getRun(runId)?.meta ?? {};
  const file = typeof meta.plan === 'string' ? meta.plan : undefined;
  if (file === undefined) throw new ArborError('usage', `Run \`${runId}\` is not a plan run.`);
  const options = (meta.plan_options ?? {}) as Record<string, unknown>;
  if (options.worktrees === true)
    throw new ArborError(
      'usage',
      `Run \`${runId}\` ran its leaves in git worktrees (--worktrees): replaying such a plan run is not supported (\`arbor runs diff\` compares two of them).`,
    );
  const notes: string[] = [];
  let plan: Plan;
  if (typeof meta.plan_source === 'string') {
    plan = parsePlanToml(meta.plan_source, { source: `the plan run \`${runId}\` recorded` });
    const findings = validatePlan(plan);
    if (findings.length > 0)
      throw new ArborError(
        'plan_invalid',
        `The plan run \`${runId}\` recorded is not a valid plan: ${findings.map((f) => f.message).join('; ')}.`,
      );
  } else {
    if (!existsSync(file))
      throw new ArborError(
        'usage',
        `Run \`${runId}\` was recorded by an older arbor that kept no copy of its plan, and its plan file ${file} is gone: nothing to replay.`,
      );
    plan = (await preparePlan(file, { resume: false })).plan;
    notes.push(
      `the run recorded no copy of its plan (an older arbor): it is read from ${file} as that file is now`,
    );
  }
  const onFailure = (FAILURE_POLICIES as readonly unknown[]).includes(options.on_failure)
    ? (options.on_failure as FailurePolicy)
    : DEFAULT_OPTIONS.onFailure;
  if (meta.plan_options === undefined)
    notes.push(
      `the run recorded no scheduling options (an older arbor): it is replayed with concurrency ${DEFAULT_OPTIONS.concurrency} and --on-failure ${DEFAULT_OPTIONS.onFailure}`,
    );
  return {
    file,
    plan,
    concurrency: positive(options.concurrency) ?? DEFAULT_OPTIONS.concurrency,
    onFailure,
    verifyTimeoutMs: positive(options.verify_timeout_ms) ?? DEFAULT_OPTIONS.verifyTimeoutMs,
    cwd: typeof meta.cwd === 'string' ? meta.cwd : undefined,
    notes,
  };
}

function positive(value: unknown): number | undefined {
  return typeof value === 'number' && Number.isInteger(value) && value > 0 ? value : undefined;
}

/** What a plan replay takes beyond a run's start: where its own run-log goes. */
export type PlanReplayStart = Omit<
  PlanStart,
  'file' | 'plan' | 'concurrency' | 'onFailure' | 'verifyTimeoutMs' | 'worktrees' | 'logPath'
> & { logPath: string };

/**
 * Starts a replay of a recorded plan run as a new run: the plan as the run began it, scheduled as
 * it was, its plan node holding the recorded grant (narrowed by `request.grant`), each leaf
 * claiming its recorded node and answered from its record. Verify gates are served from their
 * `plan.verify` records under recorded tool results; run live, a gate whose outcome differs from
 * the record is a divergence (`verify`), which stops the plan unless the replay goes on live. The
 * replay writes its own run-log (`start.logPath`), never the recorded run's.
 */
export async function startPlanReplay(
  runtime: Runtime,
  start: PlanReplayStart,
  request: ReplayRequest,
  recorded: RecordedPlan,
): Promise<StartedPlan & { source: StoreReplaySource }> {
  const source = replaySource(runtime.store, request, 'plan');
  mkdirSync(path.dirname(start.logPath), { recursive: true });
  const root = source.rootRecord;
  const gates = recordedGates(runtime.store, request.runId);
  const runId = start.runId ?? mintRunId();
  // Set once the plan started: a divergence stops it.
  const running: { plan?: StartedPlan } = {};
  const verify = async (
    leaf: { id: string },
    nodeId: string,
    run: () => Promise<LeafOutcome | undefined>,
  ): Promise<LeafOutcome | undefined> => {
    const gate = gates.get(nodeId);
    if (request.tools === 'recorded') {
      if (gate === undefined)
        recorded.notes.push(`leaf \`${leaf.id}\`'s verify gate has no record: not run`);
      return gate?.outcome;
    }
    const live = await run();
    if (gate !== undefined && (live === undefined) !== (gate.outcome === undefined)) {
      runtime.store.appendEvent({
        runId,
        nodeId,
        ts: Date.now(),
        ...toStoredEvent({
          type: 'replay.divergence',
          call: gate.calls + 1,
          step: gate.calls + 1,
          what: 'verify',
          recorded: gateText(gate.outcome),
          replayed: gateText(live),
          live: request.continueLive,
        }),
      });
      if (!request.continueLive) running.plan?.stop(`leaf \`${leaf.id}\`'s verify gate diverged`);
    }
    return live;
  };
  const started = await startPlan(runtime, {
    ...start,
    runId,
    file: recorded.file,
    plan: recorded.plan,
    concurrency: recorded.concurrency,
    onFailure: recorded.onFailure,
    verifyTimeoutMs: recorded.verifyTimeoutMs,
    worktrees: false,
    replay: source,
    // Under recorded tool results, leaves hold what they held where the run was recorded.
    ...(request.tools === 'recorded' && recorded.cwd !== undefined ? { cwd: recorded.cwd } : {}),
    verify,
    config: {
      ...start.config,
      instruction: root.instruction,
      grant: replayCaveats(runtime, request, root.payload.caveats),
    },
    meta: replayMeta(start.meta, request),
  });
  running.plan = started;
  return { ...started, source };
}

function gateText(outcome: LeafOutcome | undefined): string {
  return outcome === undefined ? 'passed' : `failed: ${outcome.result ?? ''}`.trimEnd();
}

/** Each leaf node's recorded verify outcome, and how many model calls the node made before it. */
function recordedGates(
  store: Pick<RunStore, 'listEvents'>,
  runId: string,
): Map<string, { outcome: LeafOutcome | undefined; calls: number }> {
  const gates = new Map<string, { outcome: LeafOutcome | undefined; calls: number }>();
  const calls = new Map<string, number>();
  for (const event of store.listEvents(runId)) {
    if (event.nodeId === undefined) continue;
    if (event.kind === 'model.call') calls.set(event.nodeId, (calls.get(event.nodeId) ?? 0) + 1);
    if (event.kind !== 'plan.verify') continue;
    const result = typeof event.data.result === 'string' ? event.data.result : undefined;
    gates.set(event.nodeId, {
      outcome:
        event.data.passed === true
          ? undefined
          : { status: 'failed', ...(result === undefined ? {} : { result }) },
      calls: calls.get(event.nodeId) ?? 0,
    });
  }
  return gates;
}
