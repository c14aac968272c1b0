import path from 'node:path';
import {
  authoredPlanPath,
  leaves,
  resumePlan,
  PlanWorktrees,
  runLogPath,
  runSchedule,
  validatePlan,
  RunLogWriter,
  type MergeReport,
  type Plan,
  type ScheduleSummary,
  type Subtask,
} from '../plan/index.js';
import { isArborError, type IntelConfig } from '../protocol/index.js';
import { SqliteStore } from '../store/index.js';
import { Supervisor, timingFromEnv } from '../supervisor/index.js';
import { createEventLog } from './event-log.js';
import { EXIT } from './exit-codes.js';
import { LiveTree } from './live-tree.js';
import { write, type CliIo } from './output.js';
import { leafDispatcher } from './plan-leaf.js';
import { loadPlan, parsePlanArgs } from './plan-load.js';
import {
  PLAN_RUN_HELP,
  PLAN_RUN_OPTIONS,
  resolvePlanRunFlags,
  type PlanRunFlags,
} from './plan-run-options.js';
import { planReport, planSummaryText } from './plan-report.js';
import { mintRunId } from './run-id.js';
import { humanResponder, reloadIntelligence, withIntelligence } from './run-setup.js';
import { resolveRunSettings, type RunSettings } from './run-settings.js';
import { installRunSignals } from './run-signals.js';
import { announceSafety, prepareRunSafety, type RunSafety } from './run-safety.js';
import { checkRunLog, recordRunLog } from './run-log-check.js';
import { usageError } from './usage-error.js';

export { PLAN_RUN_HELP } from './plan-run-options.js';

/**
 * `arbor plan run <plan.toml>` and `arbor plan resume <plan.run.toml>`: validates the plan and
 * every flag before anything runs, then schedules its leaves through the supervisor, keeping the
 * run-log current after every transition.
 */
export async function planRun(args: string[], io: CliIo, resume: boolean): Promise<number> {
  const command = resume ? 'plan resume' : 'plan run';
  const { file, values } = parsePlanArgs(command, args, PLAN_RUN_OPTIONS);
  if (values.help === true) {
    await write(io.stdout, PLAN_RUN_HELP);
    return EXIT.ok;
  }
  if (file === undefined) throw usageError(`${command}: expected a plan file.`);
  const flags = resolvePlanRunFlags(values);
  const authoredPath = values.plan ?? authoredPlanPath(file);
  if (!resume && values.plan !== undefined)
    throw usageError('`--plan` names the authored plan of a run-log: it goes with `plan resume`.');
  const plan = await loadPlan(resume ? authoredPath : file, io).catch((error: unknown) => {
    if (!resume || !isArborError(error, 'config')) throw error;
    throw usageError(
      `resume takes every leaf's instruction and authority from the authored plan, and ${error.message.replace(/\.$/, '')}; name it with \`--plan FILE\`.`,
    );
  });
  if (plan === undefined) return EXIT.usage;
  let runLog: Plan | undefined;
  if (resume && authoredPath !== file) {
    runLog = await loadPlan(file, io);
    if (runLog === undefined) return EXIT.usage;
    const resumed = resumePlan(plan, runLog);
    plan.subtask = resumed.plan.subtask;
    if (resumed.dropped.length > 0) {
      await write(
        io.stderr,
        `arbor: ${file} has subtasks ${authoredPath} no longer has; they are dropped: ${resumed.dropped.join(', ')}\n`,
      );
    }
  }
  const findings = validatePlan(plan);
  if (findings.length > 0) {
    const shown = resume ? authoredPath : file;
    await write(io.stderr, findings.map((f) => `${shown}: ${f.message} [${f.code}]\n`).join(''));
    return EXIT.usage;
  }
  if (!resume) for (const subtask of plan.subtask) restart(subtask);
  const { provider: _provider, plan: _plan, 'trust-run-log': trust, ...runValues } = values;
  const settings = resolveRunSettings(plan.goal ?? `plan ${file}`, runValues, io.env);
  if (runLog !== undefined && trust !== true) await verifyRunLog(file, runLog.run, settings.dbPath);
  // The plan and its run-log are the run's own state: leaves may read them, never write them.
  const safety = await prepareRunSafety(settings, io.env, {
    cwd: process.cwd(),
    readOnly: [...new Set([file, runLogPath(file), authoredPath])],
  });
  return withIntelligence(settings, io.env, (intelligence, mockLabel) =>
    runPlanWithStore({ file, plan, flags, settings, safety, intelligence, io, mockLabel, command }),
  );
}

interface PlanRunContext {
  file: string;
  plan: Plan;
  flags: PlanRunFlags;
  settings: RunSettings;
  safety: RunSafety;
  intelligence: IntelConfig;
  io: CliIo;
  mockLabel: string | undefined;
  command: string;
}

async function runPlanWithStore(context: PlanRunContext): Promise<number> {
  const { plan, flags, settings, io } = context;
  const env = io.env;
  const logPath = runLogPath(context.file);
  const count = leaves(plan).length;
  const runId = mintRunId();
  const cwd = process.cwd();
  // Checked before anything is recorded: a directory that is not a repository is a usage error.
  const worktrees = flags.worktrees ? await PlanWorktrees.open(cwd, runId) : undefined;
  const store = new SqliteStore(settings.dbPath);
  store.createRun({
    id: runId,
    instruction: settings.instruction,
    status: 'running',
    createdAt: Date.now(),
    meta: {
      command: context.command,
      plan: path.resolve(context.file),
      run_log: path.resolve(logPath),
    },
  });
  await write(
    io.stderr,
    `arbor: run ${runId} (store ${settings.dbPath}); run-log ${logPath}${context.mockLabel === undefined ? '' : `\narbor: ${context.mockLabel}`}\n`,
  );
  await announceSafety(context.safety, store, runId, io);
  const pathOf = (id: string): string | undefined => supervisor.tree.get(id)?.path;
  const eventLog = io.isStderrTty ? undefined : createEventLog(io.stderr, runId, pathOf);
  const supervisor: Supervisor = new Supervisor({
    runId,
    store,
    timing: timingFromEnv(env),
    env,
    limits: {
      maxDepth: settings.maxDepth,
      // Leaves are the plan's children: the plan's own flags bound how many run at once.
      maxBreadth: Math.max(settings.maxBreadth, flags.concurrency),
      maxTotal: settings.maxTotal + count,
    },
    rate: { count: settings.spawnRate.count + count, perMs: settings.spawnRate.perMs },
    humans: humanResponder(settings, io, store),
    rules: settings.rules,
    allowTrifecta: settings.allowTrifecta,
    budget: settings.budget,
    onEvent: (event) => eventLog?.(event),
  });
  const tree = io.isStderrTty ? new LiveTree(io.stderr, supervisor.tree) : undefined;
  const stop = new AbortController();
  const signals = installRunSignals(supervisor, {
    reload: () => reloadIntelligence(settings, env),
    swapPolicy: settings.swapPolicy,
    onInterrupt: () => {
      stop.abort('interrupted');
    },
  });
  let summary: ScheduleSummary;
  let merge: MergeReport | undefined;
  const nodes = new Map<string, string>();
  plan.run = runId;
  const log = new RunLogWriter(logPath, plan, (text) => {
    recordRunLog(store, runId, logPath, text);
  });
  log.update().catch(() => undefined);
  const planNode = supervisor.openPlan({
    instruction: settings.instruction,
    intelligence: context.intelligence,
    limits: {
      max_steps: settings.maxSteps,
      ...(settings.deadlineMs === undefined ? {} : { deadline_ms: settings.deadlineMs }),
      max_depth: settings.maxDepth,
    },
    caveats: settings.grant,
    mcp_servers: settings.mcpServers,
    ...context.safety.template,
  });
  tree?.start();
  try {
    await log.flush();
    summary = await runSchedule(plan, {
      concurrency: flags.concurrency,
      onFailure: flags.onFailure,
      signal: stop.signal,
      dispatch: leafDispatcher({
        nodes,
        supervisor,
        planNode,
        plan,
        grant: settings.grant,
        cwd,
        env,
        verifyTimeoutMs: flags.verifyTimeoutMs,
        worktrees,
        provider: flags.provider,
      }),
      // Not awaited: the scheduler goes on while the log is written; every transition is on
      // disk after the next rewrite.
      onTransition: (changed) => {
        void log.update().then(
          () => {
            killPoint(env, changed);
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
    store.close();
    throw error;
  } finally {
    await worktrees?.close();
    tree?.stop();
    signals.dispose();
  }
  const ok = summary.done === count && (merge?.conflicts.length ?? 0) === 0;
  const status = signals.interrupted ? 'cancelled' : ok ? 'completed' : 'failed';
  await supervisor.closePlan(planNode, status);
  store.finishRun(runId, status, Date.now());
  const usage = supervisor.subtreeUsage(planNode.node.id);
  const leafNodes = new Map(
    [...nodes].map(([leaf, id]) => [leaf, { node_id: id, usage: supervisor.subtreeUsage(id) }]),
  );
  store.close();
  const report = { runId, logPath, plan, summary, merge, usage, leafNodes };
  await write(
    io.stdout,
    settings.json ? `${JSON.stringify(planReport(report))}\n` : planSummaryText(report),
  );
  if (merge !== undefined && merge.conflicts.length > 0) {
    const lines = merge.conflicts.map(
      (c) =>
        `arbor: merge conflict: leaf \`${c.leaf}\` (${c.commit.slice(0, 12)}) in ${c.files.join(', ')}\n`,
    );
    await write(io.stderr, lines.join(''));
  }
  if (signals.interrupted) return EXIT.interrupted;
  return ok ? EXIT.ok : EXIT.partial;
}

/** A run-log is trusted only as the bytes its run last wrote (see `checkRunLog`). */
async function verifyRunLog(
  file: string,
  runId: string | undefined,
  dbPath: string,
): Promise<void> {
  const store = new SqliteStore(dbPath);
  try {
    await checkRunLog(file, runId, store);
  } finally {
    store.close();
  }
}

/** A fresh run starts every subtask over: the authored statuses and results are not carried. */
function restart(subtask: Subtask): void {
  subtask.status = 'pending';
  delete subtask.result;
  delete subtask.artifact_ref;
}

/**
 * Crash-recovery tests: `ARBOR_TEST_KILL_AT=plan.<status>:<id>` kills this process with SIGKILL
 * right after the run-log records that subtask in that status.
 */
function killPoint(env: NodeJS.ProcessEnv, changed: readonly Subtask[]): void {
  const at = env.ARBOR_TEST_KILL_AT;
  if (!at?.startsWith('plan.')) return;
  if (changed.some((subtask) => at === `plan.${subtask.status}:${subtask.id}`))
    process.kill(process.pid, 'SIGKILL');
}
