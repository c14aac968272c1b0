import path from 'node:path';
import {
  importRun,
  recordedPlan,
  replayDivergences,
  replayNotes,
  startPlanReplay,
  type ReplayDivergence,
  type ReplayRequest,
  type RunFile,
} from '../replay/index.js';
import { validateAll, type RunSettings } from '../config/index.js';
import { withStore } from '../store/index.js';
import { EXIT } from '../runtime/index.js';
import { eventsMode } from './events-mode.js';
import { write, type CliIo } from './output.js';
import { runPlanWithStore } from './plan-run.js';
import { withIntelligence } from './run-setup.js';
import { prepareRunSafety } from './run-safety.js';

/** Where a plan replay writes its own run-log: arbor's state directory, never the plan's. */
const REPLAY_LOG_DIR = path.join('.arbor', 'replays');

/** What `arbor replay` hands a plan run's replay. */
export interface PlanReplayCall {
  /** The recorded run, and its run file when it came from one (imported first). */
  runId: string;
  file: RunFile | undefined;
  target: string;
  /** The request, less the grant, which is read from the settings (`grant` names the axes). */
  request: Omit<ReplayRequest, 'grant'>;
  grantAxes: readonly (keyof RunSettings['grant'])[];
  resolve: () => RunSettings;
  events: string | undefined;
  io: CliIo;
  divergenceText(found: readonly ReplayDivergence[], of: string, replay: string): string;
}

/**
 * `arbor replay RUN` for a plan run: the plan as the run began it runs again through `plan run`'s
 * machinery, each leaf answered from its record, the replay's run-log in `.arbor/replays/`.
 */
export async function replayPlanRun(call: PlanReplayCall): Promise<number> {
  const { io, runId } = call;
  const { settings, events } = validateAll({
    settings: call.resolve,
    events: () => eventsMode(call.events, io),
  });
  const recorded = await withStore(settings.dbPath, async (store) => {
    if (call.file !== undefined) importRun(store, call.file, call.target);
    return recordedPlan(store, runId);
  });
  const grant = settings.grant;
  const request: ReplayRequest = {
    ...call.request,
    ...(call.grantAxes.length === 0
      ? {}
      : { grant: Object.fromEntries(call.grantAxes.map((axis) => [axis, grant[axis]])) }),
  };
  const logDir = path.resolve(REPLAY_LOG_DIR);
  const safety = await prepareRunSafety(settings, io.env, { cwd: process.cwd() });
  return withIntelligence(settings, io.env, (intelligence, mockLabel) =>
    runPlanWithStore({
      file: recorded.file,
      plan: recorded.plan,
      flags: {
        concurrency: recorded.concurrency,
        onFailure: recorded.onFailure,
        verifyTimeoutMs: recorded.verifyTimeoutMs,
        worktrees: false,
      },
      settings,
      safety,
      intelligence,
      io,
      mockLabel,
      command: 'replay',
      events,
      continues: undefined,
      begin: {
        begin: async (runtime, start) => {
          const logPath = path.join(logDir, `${start.runId ?? runId}.run.toml`);
          return startPlanReplay(runtime, { ...start, logPath }, request, recorded);
        },
        after: async (runtime, replayId, out) => {
          const found = replayDivergences(runtime.store, replayId);
          const notes = [...recorded.notes, ...replayNotes(runtime.store, runId)].map(
            (note) => `arbor: note: ${note}\n`,
          );
          await write(
            out.stderr,
            `${notes.join('')}${call.divergenceText(found, runId, replayId)}`,
          );
          return found.some((d) => !d.live) ? EXIT.internal : undefined;
        },
      },
    }),
  );
}
