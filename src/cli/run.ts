import { isArborError, type IntelConfig, type Outcome } from '../protocol/index.js';
import {
  mintRunId,
  planResume,
  type Runtime,
  type RunStart,
  type StartedRun,
} from '../runtime/index.js';
import type { NodeResult, Supervisor } from '../supervisor/index.js';
import { WarmInput } from './warm-input.js';
import { ndjsonEvents } from './event-log.js';
import { EXIT } from '../runtime/index.js';
import { exitCodeFor } from '../runtime/index.js';
import { AnswerView } from './answer-view.js';
import { eventsMode, type EventsMode } from './events-mode.js';
import { LiveTree } from './live-tree.js';
import { write, type CliIo } from './output.js';
import {
  openRuntime,
  intelMeta,
  resolveRunSettings,
  validateAll,
  type RunSettings,
} from '../config/index.js';
import { recordedIntelligence } from './recorded-run.js';
import { RUN_OPTIONS, type RunValues } from './run-options.js';
import { installRunSignals } from './run-signals.js';
import { announceSafety, prepareRunSafety, type RunSafety } from './run-safety.js';
import { humanResponder, reloadIntelligence, withIntelligence } from './run-setup.js';
import { parseCommandArgs, usageError } from './usage-error.js';
import { routeWarnings } from './process-warnings.js';

export { RUN_HELP } from './run-options.js';

/**
 * `arbor run <instruction>`: runs one root agent in a child process and prints its result on
 * stdout. Every flag is validated before any model call; the live tree (or NDJSON events) goes to
 * stderr; the exit code says how the run ended.
 */
export async function runCommand(
  args: string[],
  io: CliIo,
  env: NodeJS.ProcessEnv,
): Promise<number> {
  const { values, positionals } = parseCommandArgs('run', args, RUN_OPTIONS, true);
  if (values.resume !== undefined) {
    if (positionals.length > 0)
      throw usageError('`--resume RUN` continues a recorded run: give no instruction with it.');
    return resumeRun(values.resume, values, io, env);
  }
  return runSettings(() => resolveRunSettings(positionals.join(' '), values, env), values, io, env);
}

/**
 * `arbor resume RUN` (also `arbor run --resume RUN`): continues an interrupted run with the
 * intelligence, MCP servers and credentials given now (the model and endpoints the run recorded
 * where none are given); prints as `arbor run` would have.
 */
export async function resumeRun(
  runId: string,
  values: RunValues,
  io: CliIo,
  env: NodeJS.ProcessEnv,
): Promise<number> {
  // The instruction is the recorded one; the settings supply everything that was never stored.
  const recorded = (dbPath: string) => recordedIntelligence(dbPath, runId);
  const resolve = () => resolveRunSettings(`resume ${runId}`, values, env, { recorded });
  return runSettings(resolve, values, io, env, {
    runId,
    deadline: values.deadline !== undefined,
    narrow: GRANT_FLAGS.filter(([flag]) => values[flag] !== undefined).map(([, axis]) => axis),
  });
}

type GrantAxis = 'fs_read' | 'fs_write' | 'exec' | 'net';

/** Which run to resume, and what the flags given to `resume` change of its record. */
type ResumeRequest = { runId: string } & Parameters<Runtime['resumeRun']>[2];

/** The grant flags a resume may narrow the recorded grant with, and the axis each names. */
/** The grant flags a resume or a replay may narrow the recorded grant with, and each one's axis. */
export const GRANT_FLAGS = [
  ['fs-read', 'fs_read'],
  ['fs-write', 'fs_write'],
  ['exec', 'exec'],
  ['net', 'net'],
] as const satisfies readonly (readonly [keyof RunValues, GrantAxis])[];

/**
 * How a run other than a plain one begins, and what is said after it: `arbor replay` (see
 * replay-command.ts) starts its run from a recorded one and reports its divergences.
 */
export interface RunBegin {
  /** What the run is announced as (`replaying run X as`). */
  label: string;
  /** Checks what can be checked before anything is announced; throws to refuse. */
  check?(runtime: Runtime): void;
  begin(runtime: Runtime, start: RunStart): StartedRun;
  /** Said on stderr once the run ended; the exit code, when it replaces the outcome's. */
  after(runtime: Runtime, runId: string, io: CliIo): Promise<number | undefined>;
}

export async function runSettings(
  resolve: () => RunSettings,
  values: RunValues,
  io: CliIo,
  env: NodeJS.ProcessEnv,
  resuming?: { runId: string; deadline: boolean; narrow: readonly GrantAxis[] },
  custom?: RunBegin,
): Promise<number> {
  const { settings, events } = validateAll({
    settings: resolve,
    events: () => eventsMode(values.events, io),
  });
  const resume =
    resuming === undefined
      ? undefined
      : {
          runId: resuming.runId,
          ...(resuming.deadline && settings.deadlineMs !== undefined
            ? { deadlineMs: settings.deadlineMs }
            : {}),
          ...(resuming.narrow.length === 0
            ? {}
            : {
                narrow: Object.fromEntries(
                  resuming.narrow.map((axis) => [axis, settings.grant[axis]]),
                ),
              }),
        };
  const safety = await prepareRunSafety(settings, env, { cwd: process.cwd() });
  return withIntelligence(settings, env, (intelligence, mockLabel) =>
    runWithStore(settings, safety, intelligence, io, env, mockLabel, events, resume, custom),
  );
}

async function runWithStore(
  settings: RunSettings,
  safety: RunSafety,
  intelligence: IntelConfig,
  io: CliIo,
  env: NodeJS.ProcessEnv,
  mockLabel: string | undefined,
  events: EventsMode,
  resume: ResumeRequest | undefined,
  custom: RunBegin | undefined,
): Promise<number> {
  const runId = resume?.runId ?? mintRunId();
  const unrouteWarnings = routeWarnings(events, runId, io);
  try {
    return await runRoot(settings, safety, intelligence, io, env, mockLabel, events, runId, {
      resume,
      custom,
    });
  } finally {
    unrouteWarnings();
  }
}

async function runRoot(
  settings: RunSettings,
  safety: RunSafety,
  intelligence: IntelConfig,
  io: CliIo,
  env: NodeJS.ProcessEnv,
  mockLabel: string | undefined,
  events: EventsMode,
  runId: string,
  how: { resume: ResumeRequest | undefined; custom: RunBegin | undefined },
): Promise<number> {
  const { resume, custom } = how;
  const runtime = await openRuntime(settings, env);
  // A run that cannot be resumed says why, and nothing announces it as resuming first.
  try {
    if (resume !== undefined) planResume(runtime.store, runId);
    custom?.check?.(runtime);
  } catch (error) {
    await runtime.close();
    throw error;
  }
  const label = custom?.label ?? (resume === undefined ? 'run' : 'resuming run');
  await write(
    io.stderr,
    `arbor: ${label} ${runId} (store ${settings.dbPath})${mockLabel === undefined ? '' : `\narbor: ${mockLabel}`}\n`,
  );
  await announceSafety(safety, io);
  const turnLines: Promise<void>[] = [];
  const eventLog = events === 'ndjson' ? ndjsonEvents(io.stderr, runId) : undefined;
  // The answer streams where a person reads it: a terminal stdout, a one-shot run, no report.
  const view: { answer?: AnswerView } = {};
  // A resumed run is a warm session when its record says so, whatever the flags given to resume.
  const session: { warm: boolean; input?: WarmInput } = { warm: settings.warm };
  const begin = (start: RunStart): StartedRun => {
    if (resume === undefined && custom === undefined) return runtime.startRun(start);
    try {
      return custom === undefined
        ? runtime.resumeRun(start, runId, resume)
        : custom.begin(runtime, start);
    } catch (error) {
      void runtime.close();
      throw error;
    }
  };
  const { supervisor, done, warm, turnOpen } = begin({
    runId,
    config: settings,
    intelligence,
    safety,
    humans: humanResponder(settings, io, runtime.store),
    meta: {
      command: custom !== undefined ? 'replay' : resume === undefined ? 'run' : 'resume',
      ...intelMeta(settings.intelligence, intelligence),
      endpoints: intelligence.endpoints.length,
      max_steps: settings.maxSteps,
      warm: settings.warm,
    },
    onEvent: (event, nodes) => {
      eventLog?.(event, nodes);
      view.answer?.onEvent(event, nodes);
      if (event.type === 'turn' && session.warm) {
        turnLines.push(write(io.stdout, formatOutcome(event.outcome, settings.json)));
        session.input?.answered(event.nodeId);
      }
    },
  });
  session.warm = warm;
  const streams = io.isStdoutTty === true && !settings.json && !warm;
  const tree = events === 'tree' ? new LiveTree(io.stderr, supervisor.tree) : undefined;
  // No text has streamed yet: the root's child is still starting.
  if (streams) view.answer = new AnswerView(io.stdout, tree);
  tree?.start();
  const signals = installRunSignals(supervisor, {
    reload: () => reloadIntelligence(settings, env),
    swapPolicy: settings.swapPolicy,
    onReloadError: (message) => {
      void write(
        io.stderr,
        `arbor: reload refused, keeping the running intelligence: ${message}\n`,
      );
    },
  });
  // A replayed warm session takes its messages from its record, not from stdin.
  if (warm && custom === undefined) session.input = new WarmInput(io, supervisor, turnOpen);
  const feeder = session.input;
  let result: NodeResult;
  try {
    result = await done;
  } catch (error) {
    view.answer?.finish();
    tree?.stop();
    signals.dispose();
    await runtime.close();
    if (isArborError(error, 'spawn_failed')) {
      await write(io.stderr, `arbor: the root agent could not start: ${error.message}\n`);
      const failedCode = error.details.failedCode;
      return typeof failedCode === 'string' ? exitCodeFor('failed', failedCode) : EXIT.internal;
    }
    throw error;
  }
  feeder?.close();
  view.answer?.finish();
  tree?.stop();
  signals.dispose();
  await Promise.all(turnLines);
  const { outcome } = result.end;
  const replaced = await custom?.after(runtime, runId, io);
  await runtime.close();
  if (settings.json) {
    await write(io.stdout, `${JSON.stringify(jsonReport(runId, result, supervisor))}\n`);
  } else if (!warm) {
    await write(io.stdout, formatOutcome(outcome, false));
  }
  if (outcome.status !== 'completed' && outcome.reason !== undefined) {
    await write(io.stderr, `arbor: run ended ${outcome.status}: ${outcome.reason}\n`);
  }
  if (result.end.error?.code === 'intel_unavailable')
    await write(io.stderr, endpointList(intelligence));
  if (signals.interrupted) return EXIT.interrupted;
  return replaced ?? exitCodeFor(outcome.status, result.end.error?.code);
}

/**
 * Which address each endpoint number stands for: the run's records name endpoints by number only,
 * and the person at this terminal gave the addresses. Origins only: no path, no user or password.
 */
function endpointList(intelligence: IntelConfig): string {
  const origins = intelligence.endpoints.map(
    (endpoint, index) => `endpoint ${index} is ${new URL(endpoint.url).origin}`,
  );
  return `arbor: ${origins.join('; ')}\n`;
}

function formatOutcome(outcome: Outcome, json: boolean): string {
  if (json)
    return `${JSON.stringify({ status: outcome.status, result: outcome.result, ...(outcome.reason === undefined ? {} : { reason: outcome.reason }) })}\n`;
  const { result } = outcome;
  if (result === null || result === undefined) return '';
  return `${typeof result === 'string' ? result : JSON.stringify(result, null, 2)}\n`;
}

function jsonReport(runId: string, result: NodeResult, supervisor: Supervisor) {
  const nodes = supervisor.tree.nodes();
  const { outcome } = result.end;
  return {
    run_id: runId,
    status: outcome.status,
    result: outcome.result,
    ...(outcome.reason === undefined ? {} : { reason: outcome.reason }),
    ...(result.end.error === undefined ? {} : { error: result.end.error }),
    usage: supervisor.subtreeUsage(result.node.id),
    nodes: nodes.map((node) => ({
      id: node.id,
      path: node.path,
      status: node.status,
      steps: node.steps,
      usage: node.usage,
      subtree_usage: supervisor.subtreeUsage(node.id),
      ...(node.trajectory === undefined ? {} : { trajectory: node.trajectory }),
    })),
  };
}
