import { mkdirSync, writeFileSync } from 'node:fs';
import path from 'node:path';
import { openRuntime, resolveGrant } from '../config/index.js';
import {
  parseForkPoint,
  recordedPlan,
  startPlanReplay,
  startReplay,
  type ReplayRequest,
} from '../replay/index.js';
import { checkTools, commandOf, msOf, withReadable } from './open-helpers.js';
import { runLogPath, stringifyPlan, type Plan } from '../plan/index.js';
import { ArborError, type Caveats } from '../protocol/index.js';
import {
  checkRunLog,
  continuedRun,
  eventOf,
  mintRunId,
  prepareRunSafety,
  preparePlan,
  runLogRun,
  startPlan,
  type Runtime,
  type RunConfig,
  type RunSafety,
  type RunStart,
} from '../runtime/index.js';
import {
  firstResponder,
  storeResponder,
  type SupervisorEvent,
  type Tree,
} from '../supervisor/index.js';
import { probeSandbox, type HostTool } from '../tools/index.js';
import type { SqliteStore } from '../store/index.js';
import { EventStream } from './event-stream.js';
import { GateAnswers } from './gate-answers.js';
import { openSettings, type OpenSettings } from './open-settings.js';
import type {
  ArborOptions,
  PlanRunOptions,
  ReplayOptions,
  ResumeOptions,
  RunOptions,
} from './options.js';
import { narrowRun } from './narrow-run.js';
import { recordedRunOf } from './replay-source.js';
import { planRun, rootRun } from './plan-result.js';
import { RunHandle, type RunControl, type RunResult } from './run-handle.js';
import { RunHistory } from './run-history.js';

/**
 * arbor as a library: one store, one intelligence, the host's tools; runs and plans started from
 * code, each with a handle that streams its events. It behaves as a guest in its host process: no
 * signal handlers, no `process.exit`, nothing written to stdout or stderr, and `close()` leaves
 * no child running.
 */
export class Arbor {
  readonly #runtime: Runtime;
  readonly #settings: OpenSettings;
  readonly #options: ArborOptions;
  readonly #env: NodeJS.ProcessEnv;
  readonly #handles = new Set<Promise<unknown>>();
  /** Files of arbor's own secrets no node may read (`arbor serve`'s token). */
  #secretFiles: readonly string[] = [];
  /** Past and present runs in this store. */
  readonly runs: RunHistory;

  private constructor(
    options: ArborOptions,
    env: NodeJS.ProcessEnv,
    settings: OpenSettings,
    runtime: Runtime,
  ) {
    this.#options = options;
    this.#env = env;
    this.#settings = settings;
    this.#runtime = runtime;
    this.runs = new RunHistory(runtime.store);
  }

  /**
   * @internal An instance on settings already resolved (`arbor serve` resolves them as `arbor run`
   * does, flags and all), with its store for the server's own tables.
   */
  static async withSettings(
    settings: OpenSettings,
    env: NodeJS.ProcessEnv,
    secrets: { files: readonly string[]; values: readonly string[] } = { files: [], values: [] },
    tools: readonly HostTool[] = [],
    parkAfterMs?: number,
  ): Promise<{ arbor: Arbor; store: SqliteStore }> {
    const runtime = await openRuntime(settings.base, env, {
      cwd: settings.cwd,
      hostTools: tools,
      secrets: secrets.values,
      ...(parkAfterMs === undefined ? {} : { parkAfterMs }),
    });
    const arbor = new Arbor({ tools }, env, settings, runtime);
    arbor.#secretFiles = secrets.files;
    return { arbor, store: runtime.store };
  }

  /** Validates every option, resolves credentials and opens the store. Bad options throw a `config` error naming them. */
  static async open(options: ArborOptions = {}): Promise<Arbor> {
    const env = options.env ?? process.env;
    if (options.tools !== undefined) checkTools(options.tools);
    const childCommand = commandOf(options.childCommand);
    const settings = await openSettings(options, env);
    const runtime = await openRuntime(settings.base, env, {
      cwd: settings.cwd,
      ...(options.tools === undefined ? {} : { hostTools: options.tools }),
      ...(childCommand === undefined ? {} : { childCommand }),
    });
    return new Arbor(options, env, settings, runtime);
  }

  /** Starts a root agent on `instruction`. */
  run(instruction: string, options: RunOptions = {}): RunHandle {
    const runId = mintRunId();
    return this.#start(runId, options.signal, async (start, events) => {
      if (instruction.trim() === '')
        throw new ArborError('usage', '`run` needs an instruction: what the agent is to do.');
      // Narrowed by what the run asks for; then the files sent with it (an `arbor serve` task).
      const config = withReadable(
        narrowRun(
          this.#configFor(instruction, options),
          this.#narrowing(options.grant),
          options.budget,
          this.#settings.cwd,
        ),
        options.grantRead,
        this.#settings.cwd,
      );
      const started = this.#runtime.startRun({
        ...start,
        ...(options.traceparent === undefined ? {} : { traceparent: options.traceparent }),
        config,
        safety: await this.#safety(runId, events, config),
        meta: { command: 'api', model: this.#settings.intelligence.model, warm: config.warm },
      });
      return rootRun(runId, started);
    });
  }

  /**
   * Replays a recorded run (a run id of this store, or the path of a run file `arbor runs export`
   * wrote, imported into the store first) as a new run: every model answer comes from the record,
   * and tool results too unless `tools` is `live`. The same handle as `run`; the replay's
   * divergences are its `replay.divergence` events (and `arbor runs show`). See docs/replay.md.
   */
  replay(recorded: string, options: ReplayOptions = {}): RunHandle {
    const runId = mintRunId();
    return this.#start(runId, options.signal, async (start, events) => {
      const source = recordedRunOf(this.#runtime.store, recorded);
      const config = this.#configFor(`replay ${source}`, options);
      const narrow = this.#narrowing(options.grant);
      const from = options.from === undefined ? undefined : parseForkPoint(options.from);
      const request: ReplayRequest = {
        runId: source,
        tools: options.tools ?? 'recorded',
        continueLive: options.continueLive === true,
        ...(from === undefined ? {} : { from }),
        ...(narrow === undefined ? {} : { grant: narrow }),
      };
      const replayStart = {
        ...start,
        runId,
        config,
        safety: await this.#safety(runId, events, config),
        meta: { command: 'api replay', model: this.#settings.intelligence.model, warm: false },
      };
      if (this.#runtime.store.getRun(source)?.meta.plan !== undefined) {
        // A plan run: the plan as it began runs again; the replay's run-log is its own.
        const logPath = path.join(this.#settings.cwd, '.arbor', 'replays', `${runId}.run.toml`);
        const plan = await recordedPlan(this.#runtime.store, source);
        const started = await startPlanReplay(
          this.#runtime,
          { ...replayStart, provider: undefined, logPath },
          request,
          plan,
        );
        return planRun(runId, started);
      }
      return rootRun(runId, startReplay(this.#runtime, replayStart, request));
    });
  }

  /**
   * Continues an interrupted run (its supervisor died): the same handle as `run`. Finished nodes
   * keep their results; running ones continue from their recorded transcripts. Intelligence, MCP
   * servers and credentials are this instance's; the grant and limits are the recorded ones:
   * `grant` may only narrow the grant, and `deadline` (if given) replaces the recorded deadline. A
   * run that is not interrupted throws a `config` error through `result`.
   */
  resume(runId: string, options: ResumeOptions = {}): RunHandle {
    return this.#start(runId, options.signal, async (start, events) => {
      const config = this.#configFor(`resume ${runId}`, options);
      const narrow = this.#narrowing(options.grant);
      const started = this.#runtime.resumeRun(
        {
          ...start,
          config,
          safety: await this.#safety(runId, events, config),
          meta: { command: 'api', model: this.#settings.intelligence.model, warm: config.warm },
        },
        runId,
        {
          ...(options.deadline === undefined || config.deadlineMs === undefined
            ? {}
            : { deadlineMs: config.deadlineMs }),
          ...(narrow === undefined ? {} : { narrow }),
        },
      );
      return rootRun(runId, started);
    });
  }

  /**
   * Runs a plan: a TOML file (its run-log is written next to it), or a plan object (written under
   * the store's directory first). A run-log (`*.run.toml`) with `resume: true` continues it.
   */
  runPlan(
    planOrPath: string | Plan,
    options: PlanRunOptions & { resume?: boolean } = {},
  ): RunHandle {
    const resume = options.resume === true;
    // A resume of a run the supervisor's crash interrupted continues that run, under its id.
    const continues =
      resume && typeof planOrPath === 'string'
        ? continuedRun(this.#runtime.store, runLogRun(planOrPath))
        : undefined;
    const runId = continues ?? mintRunId();
    return this.#start(runId, options.signal, async (start, events) => {
      const file = typeof planOrPath === 'string' ? planOrPath : this.#writePlan(runId, planOrPath);
      const { plan, runLog, authoredPath } = await preparePlan(file, {
        resume,
        authored: options.authoredPlan,
      });
      if (runLog !== undefined) await checkRunLog(file, runLog.run, this.#runtime.store);
      // Narrowed by what the run asks for (an MCP caller's caps), as `run` is.
      const config = narrowRun(
        this.#configFor(plan.goal ?? `plan ${file}`, options),
        this.#narrowing(options.grant),
        options.budget,
        this.#settings.cwd,
      );
      const safety = await this.#safety(runId, events, config, [
        file,
        runLogPath(file),
        authoredPath,
      ]);
      const started = await startPlan(this.#runtime, {
        ...start,
        config,
        safety,
        file,
        plan,
        concurrency: options.concurrency ?? 4,
        onFailure: options.onFailure ?? 'stop',
        verifyTimeoutMs: msOf(options.verifyTimeout, 'verifyTimeout') ?? 300_000,
        worktrees: options.worktrees === true,
        provider: undefined,
        continues: continues !== undefined,
        meta: { command: resume ? 'api plan resume' : 'api plan run' },
      });
      return planRun(runId, started);
    });
  }

  /** Stops every run still going (through the kill ladder) and closes the store. */
  async close(): Promise<void> {
    await this.#runtime.close();
    await Promise.allSettled([...this.#handles]);
  }

  /** Everything a run needs that does not depend on what it runs. */
  #start(
    runId: string,
    signal: AbortSignal | undefined,
    begin: (
      start: Omit<RunStart, 'config' | 'safety' | 'meta'>,
      events: EventStream,
    ) => Promise<{ control: RunControl; result: Promise<RunResult> }>,
  ): RunHandle {
    const events = new EventStream();
    const gates = new GateAnswers(this.#options.onAsk);
    let resolveControl!: (control: RunControl | undefined) => void;
    const control = new Promise<RunControl | undefined>((resolve) => {
      resolveControl = resolve;
    });
    const onEvent = (event: SupervisorEvent, tree: Tree): void => {
      events.push(eventOf(event, runId, (id) => tree.get(id)?.path));
    };
    const result = (async () => {
      try {
        const begun = await begin(
          {
            runId,
            intelligence: this.#settings.intelligence,
            humans: firstResponder([gates.responder, storeResponder(this.#runtime.store)]),
            onEvent,
          },
          events,
        );
        resolveControl(begun.control);
        return await begun.result;
      } finally {
        resolveControl(undefined);
        events.close();
      }
    })();
    const handle = new RunHandle({ runId, events, gates, control, result });
    this.#handles.add(result);
    void result.then(
      () => this.#handles.delete(result),
      () => this.#handles.delete(result),
    );
    if (signal !== undefined) {
      const cancel = (): void => void handle.cancel(String(signal.reason ?? 'aborted'));
      if (signal.aborted) cancel();
      else signal.addEventListener('abort', cancel, { once: true });
    }
    return handle;
  }

  /** The run's safety; its run-level events (a sandbox off or missing) go to the run's stream too. */
  async #safety(
    runId: string,
    events: EventStream,
    config: RunConfig,
    readOnly?: string[],
  ): Promise<RunSafety> {
    const safety = await prepareRunSafety(config, this.#env, {
      cwd: this.#settings.cwd,
      // Trust is checked per run's grant; whether bwrap works is found out once (`probeSandbox`).
      probe: (trust) => probeSandbox({ env: this.#env, bwrap: config.security.bwrap, trust }),
      ...(readOnly === undefined ? {} : { readOnly: [...new Set(readOnly)] }),
      ...(this.#secretFiles.length === 0 ? {} : { secrets: this.#secretFiles }),
    });
    const ts = new Date().toISOString();
    for (const event of safety.events) events.push({ ...event, ts, runId });
    return safety;
  }

  /** The axes a run, resume or replay narrows a grant with, resolved as the config's `[grant]` is. */
  #narrowing(grant: RunOptions['grant']): Partial<Caveats> | undefined {
    if (grant === undefined) return undefined;
    const given = {
      fs_read: grant.fsRead,
      fs_write: grant.fsWrite,
      exec: grant.exec,
      net: grant.net,
    };
    const axes = (Object.keys(given) as (keyof typeof given)[]).filter(
      (axis) => given[axis] !== undefined,
    );
    if (axes.length === 0) return undefined;
    const resolved = resolveGrant(
      { config: 'resume options' },
      { grant: given },
      this.#settings.cwd,
    );
    return Object.fromEntries(axes.map((axis) => [axis, resolved[axis]]));
  }

  #configFor(
    instruction: string,
    options: RunOptions | PlanRunOptions | ResumeOptions | ReplayOptions,
  ): RunConfig {
    const { base } = this.#settings;
    return {
      ...base,
      instruction,
      maxSteps: ('maxSteps' in options ? options.maxSteps : undefined) ?? base.maxSteps,
      deadlineMs:
        msOf('deadline' in options ? options.deadline : undefined, 'deadline') ?? base.deadlineMs,
      warm: 'warm' in options && options.warm,
    };
  }

  #writePlan(runId: string, plan: Plan): string {
    const dir = path.join(this.#settings.cwd, '.arbor', 'plans');
    mkdirSync(dir, { recursive: true });
    const file = path.join(dir, `${runId}.toml`);
    writeFileSync(file, stringifyPlan(plan));
    return file;
  }
}
