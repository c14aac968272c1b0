import { existsSync } from 'node:fs';
import { planWarnings, runLogPath, type Plan } from '../plan/index.js';
import { isArborError, type IntelConfig } from '../protocol/index.js';
import {
  checkRunLog,
  continuedRun,
  EXIT,
  mintRunId,
  preparePlan,
  startPlan,
  type PlanEnd,
  type PlanStart,
  type Runtime,
  type StartedPlan,
} from '../runtime/index.js';
import { withStore } from '../store/index.js';
import { ndjsonEvents } from './event-log.js';
import { eventsMode, type EventsMode } from './events-mode.js';
import { LiveTree } from './live-tree.js';
import { write, type CliIo } from './output.js';
import { parsePlanArgs } from './plan-load.js';
import {
  PLAN_RUN_HELP,
  PLAN_RUN_OPTIONS,
  resolvePlanRunFlags,
  type PlanRunFlags,
} from './plan-run-options.js';
import { planReport, planSummaryText } from './plan-report.js';
import { humanResponder, reloadIntelligence, withIntelligence } from './run-setup.js';
import {
  openRuntime,
  intelMeta,
  resolveRunSettings,
  validateAll,
  type RecordedIntel,
  type RunSettings,
} from '../config/index.js';
import { recordedIntelligence, recordedPlanIntelligence } from './recorded-run.js';
import { installRunSignals } from './run-signals.js';
import { routeWarnings } from './process-warnings.js';
import { announceSafety, prepareRunSafety, type RunSafety } from './run-safety.js';
import { usageError } from './usage-error.js';

export { PLAN_RUN_HELP } from './plan-run-options.js';

/** How a plan's leaves may run: in their own process, or in this one. */
const LEAF_PROVIDERS = ['process', 'spawn', 'queue'] as const;

/**
 * `arbor plan run <plan.toml>` and `arbor plan resume <plan.run.toml>`: validates the plan and
 * every flag before anything runs, then schedules its leaves through the supervisor, keeping the
 * run-log current after every transition.
 */
export async function planRun(args: string[], io: CliIo, resume: boolean): Promise<number> {
  const command = resume ? 'plan resume' : 'plan run';
  // A resume uses the model and endpoints its run recorded for what no flag or config names now:
  // while the flags are checked, from the run the run-log names; once it is read, from its run.
  const settingsGiven = (recorded?: (dbPath: string) => RecordedIntel | undefined) => ({
    providers: LEAF_PROVIDERS,
    ...(resume && recorded !== undefined ? { recorded } : {}),
  });
  const { file, values } = parsePlanArgs(command, args, PLAN_RUN_OPTIONS);
  if (values.help === true) {
    await write(io.stdout, PLAN_RUN_HELP);
    return EXIT.ok;
  }
  const { plan: authored, 'trust-run-log': trust, force, ...runValues } = values;
  // Every flag is checked before the plan is read; the settings are resolved again below, with
  // the plan's goal as the instruction.
  const { planFile, flags, events } = validateAll({
    planFile: () => {
      if (file === undefined) throw usageError(`${command}: expected a plan file.`);
      return file;
    },
    flags: () => resolvePlanRunFlags(values),
    events: () => eventsMode(values.events, io),
    settings: () =>
      resolveRunSettings(
        `plan ${file}`,
        runValues,
        io.env,
        settingsGiven(file === undefined ? undefined : (db) => recordedPlanIntelligence(file, db)),
      ),
    authored: () => {
      if (!resume && authored !== undefined)
        throw usageError(
          '`--plan` names the authored plan of a run-log: it goes with `plan resume`.',
        );
      if (resume && force === true)
        throw usageError('`--force` goes with `plan run`: `plan resume` overwrites nothing.');
    },
    runLog: () => {
      if (resume || force === true || file === undefined) return;
      const log = runLogPath(file);
      if (existsSync(log))
        throw usageError(
          `${log} exists: an earlier run of this plan. \`arbor plan resume ${log}\` continues it; \`arbor plan run ${file} --force\` starts over and overwrites it.`,
        );
    },
  });
  let prepared;
  try {
    prepared = await preparePlan(planFile, { resume, authored });
  } catch (error) {
    if (isArborError(error, 'plan_invalid')) {
      await write(io.stderr, `${error.message}\n`);
      return EXIT.usage;
    }
    if (resume && isArborError(error, 'config') && error.details.path !== planFile)
      throw usageError(
        `resume takes every leaf's instruction and authority from the authored plan, and ${error.message.replace(/\.$/, '')}; name it with \`--plan FILE\`.`,
      );
    throw error;
  }
  const { plan, runLog, dropped, authoredPath } = prepared;
  if (dropped.length > 0) {
    await write(
      io.stderr,
      `arbor: ${planFile} has subtasks ${authoredPath} no longer has; they are dropped: ${dropped.join(', ')}\n`,
    );
  }
  const warnings = planWarnings(plan).map((warning) => `arbor: warning: ${warning}\n`);
  if (warnings.length > 0) await write(io.stderr, warnings.join(''));
  const loggedRun = runLog?.run;
  const settings = resolveRunSettings(
    plan.goal ?? `plan ${planFile}`,
    runValues,
    io.env,
    settingsGiven(
      loggedRun === undefined ? undefined : (db) => recordedIntelligence(db, loggedRun),
    ),
  );
  if (runLog !== undefined && trust !== true)
    await verifyRunLog(planFile, runLog.run, settings.dbPath);
  // A run the supervisor's crash interrupted is continued under its own id, its running leaves
  // re-spawned from their transcripts (under `--worktrees`, started over in fresh worktrees); for
  // a run that ended, the run-log's resume records a new run.
  const continues = runToContinue(settings.dbPath, runLog?.run);
  // The plan and its run-log are the run's own state: leaves may read them, never write them.
  const safety = await prepareRunSafety(settings, io.env, {
    cwd: process.cwd(),
    readOnly: [...new Set([planFile, runLogPath(planFile), authoredPath])],
  });
  return withIntelligence(settings, io.env, (intelligence, mockLabel) =>
    runPlanWithStore({
      file: planFile,
      plan,
      flags,
      settings,
      safety,
      intelligence,
      io,
      mockLabel,
      command,
      events,
      continues,
    }),
  );
}

/**
 * A plan run started another way than `startPlan` (a replay, `arbor replay`): how it starts, and
 * what is said once it ended.
 */
interface PlanBegin {
  begin(runtime: Runtime, start: PlanStart): Promise<StartedPlan>;
  /** Said on stderr once the plan ended; the exit code, when it replaces the outcome's. */
  after(runtime: Runtime, runId: string, io: CliIo): Promise<number | undefined>;
}

export interface PlanRunContext {
  file: string;
  plan: Plan;
  flags: PlanRunFlags;
  settings: RunSettings;
  safety: RunSafety;
  intelligence: IntelConfig;
  io: CliIo;
  mockLabel: string | undefined;
  command: string;
  events: EventsMode;
  /** The id of the interrupted run this resume continues. */
  continues: string | undefined;
  begin?: PlanBegin;
}

export async function runPlanWithStore(context: PlanRunContext): Promise<number> {
  const runId = context.continues ?? mintRunId();
  const unrouteWarnings = routeWarnings(context.events, runId, context.io);
  try {
    return await runPlanOnce(context, runId);
  } finally {
    unrouteWarnings();
  }
}

async function runPlanOnce(context: PlanRunContext, runId: string): Promise<number> {
  const { plan, flags, settings, io } = context;
  const env = io.env;
  // The same runtime `arbor run` opens, the pool (`--pool`) included.
  const runtime = await openRuntime(settings, env);
  const eventLog = context.events === 'ndjson' ? ndjsonEvents(io.stderr, runId) : undefined;
  let started;
  try {
    started = await (context.begin?.begin ?? startPlan)(runtime, {
      runId,
      file: context.file,
      plan,
      concurrency: flags.concurrency,
      onFailure: flags.onFailure,
      verifyTimeoutMs: flags.verifyTimeoutMs,
      worktrees: flags.worktrees,
      // LEAF_PROVIDERS leaves `a2a` out: a plan's leaves run here.
      provider: settings.provider === 'a2a' ? undefined : settings.provider,
      continues: context.continues !== undefined,
      config: settings,
      intelligence: context.intelligence,
      safety: context.safety,
      humans: humanResponder(settings, io, runtime.store),
      meta: {
        command: context.command,
        ...intelMeta(settings.intelligence, context.intelligence),
      },
      onEvent: (event, tree) => {
        eventLog?.(event, tree);
      },
    });
  } catch (error) {
    await runtime.close();
    throw error;
  }
  await write(
    io.stderr,
    `arbor: run ${runId} (store ${settings.dbPath}); run-log ${started.logPath}${context.mockLabel === undefined ? '' : `\narbor: ${context.mockLabel}`}\n`,
  );
  await announceSafety(context.safety, io);
  if (flags.worktrees && settings.provider === 'queue')
    await write(
      io.stderr,
      'arbor: --worktrees: leaves run on this machine, where their worktrees are, not on the fleet\n',
    );
  const { supervisor } = started;
  const tree = context.events === 'tree' ? new LiveTree(io.stderr, supervisor.tree) : undefined;
  const signals = installRunSignals(supervisor, {
    reload: () => reloadIntelligence(settings, env),
    swapPolicy: settings.swapPolicy,
    onInterrupt: () => {
      started.stop('interrupted');
    },
  });
  tree?.start();
  let end: PlanEnd;
  let code: number | undefined;
  try {
    end = await started.done;
    code = await context.begin?.after(runtime, runId, io);
  } finally {
    tree?.stop();
    signals.dispose();
    await runtime.close();
  }
  const { merge } = end;
  const report = { ...end, runId };
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
  if (code !== undefined) return code;
  return end.status === 'completed' ? EXIT.ok : EXIT.partial;
}

/** The interrupted run a resume continues, if any (see `continuedRun`). */
function runToContinue(dbPath: string, runId: string | undefined): string | undefined {
  return withStore(dbPath, (store) => continuedRun(store, runId));
}

/** A run-log is trusted only as the bytes its run last wrote (see `checkRunLog`). */
async function verifyRunLog(
  file: string,
  runId: string | undefined,
  dbPath: string,
): Promise<void> {
  await withStore(dbPath, (store) => checkRunLog(file, runId, store));
}
