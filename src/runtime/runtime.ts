import { completeRequest, meetGrant } from '../authority/index.js';
import {
  CaveatsSchema,
  intelSecrets,
  SecretScrubber,
  toStoredEvent,
  turnAnnounced,
  type Caveats,
  type IntelConfig,
} from '../protocol/index.js';
import { SqliteStore } from '../store/index.js';
import {
  ChildPool,
  childEnv,
  resolveChildCommand,
  Supervisor,
  timingFromEnv,
  type ChildCommand,
  type FleetPort,
  type HumanResponder,
  type NodeResult,
  type ReplaySource,
  type ResumeState,
  type RootTemplate,
  type SupervisorEvent,
  type Timing,
  type Tree,
} from '../supervisor/index.js';
import type { HostTool } from '../tools/index.js';
import type { RunTrace, Tracing } from '../telemetry/tracing.js';
import { eventOf } from './event-codec.js';
import { mintRunId } from './run-id.js';
import { planResume, resumedLimits, takeOverRun, type ResumePlan } from './resume-plan.js';
import type { RunSafety } from './run-safety.js';
import type { RunConfig } from './settings.js';
import { hostSecrets } from './host-secrets.js';
import { StoreRunNodes } from './run-nodes.js';
import { rootTemplate } from './root-template.js';

export { rootTemplate };

/** How long closing a runtime waits for its last spans to be exported. */
const TRACE_FLUSH_MS = 2000;

/** What a runtime is opened on: one store, one environment, the host's tools. */
export interface RuntimeOptions {
  /** The store's path, or `:memory:`. */
  storePath: string;
  /** The environment children inherit an allow-listed part of; credentials are read from it. */
  env: NodeJS.ProcessEnv;
  /** The working directory of runs (default: the process's). */
  cwd?: string;
  /** Tools the host process defined, served by the supervisor. */
  hostTools?: readonly HostTool[];
  /** How child processes are started (default: arbor's own child; `ARBOR_CHILD_COMMAND`). */
  childCommand?: ChildCommand;
  /** OpenTelemetry tracing, when it is on: every run's events become its spans. */
  tracing?: Tracing;
  /** Workers on Redis for `queue` nodes; the runtime closes it when it closes. */
  fleet?: FleetPort & { close(): Promise<void> };
  /**
   * Process children kept loaded and waiting, at most (default 0: none). The pool follows demand:
   * it starts none until a run asks for a child, then keeps as many as were asked for lately.
   */
  pool?: number;
  /**
   * Credentials of the host that no run may show, besides the fleet key and `ARBOR_REDIS_URL`'s
   * password (always taken from `env`): `arbor serve`'s tokens, a configured Redis URL's password.
   */
  secrets?: readonly string[];
  /** Park nodes that only waited this long (`Timing.parkAfterMs`; default from the env). */
  parkAfterMs?: number;
}

/** What starting a run takes, all of it validated. */
export interface RunStart {
  config: RunConfig;
  /** The intelligence, credentials resolved. */
  intelligence: IntelConfig;
  safety: RunSafety;
  /** Who answers questions agents ask. */
  humans: HumanResponder;
  /** Recorded with the run (command, model, …). */
  meta: Record<string, unknown>;
  /** Every event of the run as the supervisor reports it, with the tree to place it. */
  onEvent?(event: SupervisorEvent, tree: Tree): void;
  runId?: string;
  /** A caller's W3C `traceparent` (an A2A request's): the run's trace continues it. */
  traceparent?: string;
  /** A replay: the recorded run its nodes' answers come from (see `startReplay`). */
  replay?: ReplaySource;
}

/** A run under way: its supervisor, and its end. */
export interface StartedRun {
  runId: string;
  supervisor: Supervisor;
  /**
   * The root's end, once the run is recorded as finished. Rejects with `spawn_failed` when the
   * root never starts (the run is then recorded `crashed`).
   */
  done: Promise<NodeResult>;
  /** Whether the root is a warm session (a resumed run's is the recorded one). */
  warm: boolean;
  /**
   * Whether the root starts with a turn to answer: false only for a resumed warm session whose
   * last turn was answered, and announced, before the crash (it waits for the next message).
   */
  turnOpen: boolean;
}

/**
 * The composition root: it holds the store and builds, for each run, the supervisor with its
 * limits, grant, tools and policy. `openRuntime` (config/) opens it; `arbor run`, `arbor plan
 * run|resume` and the library's `Arbor` (and so `arbor serve`) are shells over it that parse,
 * render and map exit codes.
 */
export class Runtime {
  readonly store: SqliteStore;
  readonly #options: RuntimeOptions;
  readonly #timing: Timing;
  /** Runs under way, each with what settles once it is recorded as finished. */
  readonly #running = new Map<Supervisor, Promise<unknown>>();
  /** The trace of each traced run's supervisor, ended when the run is recorded as finished. */
  readonly #traces = new WeakMap<Supervisor, { trace: RunTrace; runId: string }>();
  #closed = false;
  readonly #pool: ChildPool | undefined;
  /** The host's credentials, which every run's scrubber starts with. */
  readonly #secrets: readonly string[];

  constructor(options: RuntimeOptions) {
    this.#options = options;
    this.#secrets = [...hostSecrets(options.env), ...(options.secrets ?? [])];
    // Supervision timings: from the environment, else arbor's defaults.
    this.#timing = timingFromEnv(options.env, { parkAfterMs: options.parkAfterMs });
    this.store = new SqliteStore(options.storePath);
    this.#pool =
      (options.pool ?? 0) > 0
        ? new ChildPool({
            command:
              options.childCommand ??
              resolveChildCommand(options.env).then(({ command }) => command),
            // What every child may see of this environment, no credential; a node that needs an
            // extra CA starts its own child with it.
            env: childEnv(options.env),
            size: 0,
            max: options.pool ?? 0,
            ...(options.cwd === undefined ? {} : { cwd: options.cwd }),
          })
        : undefined;
  }

  get env(): NodeJS.ProcessEnv {
    return this.#options.env;
  }

  get cwd(): string {
    return this.#options.cwd ?? process.cwd();
  }

  /** Records a new run and builds its supervisor; `extra` widens limits for a plan's leaves. */
  supervise(
    start: RunStart,
    runId: string,
    extra: { breadth?: number; total?: number; rate?: number } = {},
    resume?: ResumeState,
  ): Supervisor {
    if (this.#closed) throw new Error('the runtime is closed');
    const { config } = start;
    for (const event of start.safety.events)
      this.store.appendEvent({ runId, ts: Date.now(), ...toStoredEvent(event) });
    const traced = this.#options.tracing?.begin(runId, {
      name: `arbor run`,
      ...(start.traceparent === undefined ? {} : { parent: start.traceparent }),
      nodes: new StoreRunNodes(this.store, runId),
    });
    const supervisor: Supervisor = new Supervisor({
      runId,
      store: this.store,
      // Every way the run goes out passes it; each minted payload adds its own credentials.
      scrubber: new SecretScrubber([...this.#secrets, ...intelSecrets(start.intelligence)]),
      timing: this.#timing,
      env: this.#options.env,
      ...(this.#options.cwd === undefined ? {} : { cwd: this.#options.cwd }),
      ...(this.#pool === undefined ? {} : { pool: this.#pool }),
      limits: {
        maxDepth: config.maxDepth,
        maxBreadth: Math.max(config.maxBreadth, extra.breadth ?? 0),
        maxTotal: config.maxTotal + (extra.total ?? 0),
        maxQueued: config.maxQueued,
      },
      rate: { count: config.spawnRate.count + (extra.rate ?? 0), perMs: config.spawnRate.perMs },
      humans: start.humans,
      rules: config.rules,
      allowTrifecta: config.allowTrifecta,
      budget: config.budget,
      egress: config.security.egress,
      ...(this.#options.hostTools === undefined ? {} : { hostTools: this.#options.hostTools }),
      ...(this.#options.childCommand === undefined
        ? {}
        : { childCommand: this.#options.childCommand }),
      ...(resume === undefined ? {} : { resume }),
      ...(start.replay === undefined ? {} : { replay: start.replay }),
      ...(this.#options.fleet === undefined
        ? {}
        : { fleet: this.#options.fleet, processOnFleet: config.processOnFleet === true }),
      onEvent: (event) => {
        if (traced !== undefined) {
          traced.event(eventOf(event, runId, (id) => supervisor.tree.get(id)?.path));
        }
        start.onEvent?.(event, supervisor.tree);
      },
    });
    if (traced !== undefined) this.#traces.set(supervisor, { trace: traced, runId });
    return supervisor;
  }

  /**
   * Starts a root agent; the run is recorded, and finished in the store when the root ends. `root`
   * replaces parts of the root's template: a replay's are the recorded root's instruction, grant,
   * limits and warmth (see `startReplay` in src/replay/).
   */
  startRun(start: RunStart, root: Partial<RootTemplate> = {}): StartedRun {
    const runId = start.runId ?? mintRunId();
    this.store.createRun({
      id: runId,
      instruction: root.instruction ?? start.config.instruction,
      status: 'running',
      createdAt: Date.now(),
      // Where its relative paths resolve: a replay elsewhere checks recorded calls against it.
      meta: { ...start.meta, cwd: this.cwd },
    });
    return this.#runRoot(start, runId, { ...rootTemplate(start), ...root });
  }

  /**
   * Continues an interrupted run (see `planResume`): the recorded tree is rebuilt, nodes that had
   * finished keep their results, and the root is re-spawned from its transcript under this
   * process's ownership. Intelligence, MCP servers and credentials come from `start`; the grant
   * and limits are the recorded ones, the deadline counting only the time the run was active.
   */
  resumeRun(
    start: RunStart,
    runId: string,
    options: { deadlineMs?: number; narrow?: Partial<Caveats> } = {},
  ): StartedRun {
    const plan = planResume(this.store, runId);
    const recorded = plan.root.payload;
    // The recorded grant, only ever narrowed: what `narrow` names meets it, axis by axis.
    const caveats =
      options.narrow === undefined
        ? recorded.caveats
        : meetGrant(recorded.caveats, completeRequest(options.narrow), { cwd: this.cwd });
    const template: RootTemplate = {
      ...rootTemplate(start),
      instruction: recorded.instruction,
      caveats,
      limits: resumedLimits(recorded.limits, plan.activeMs, options.deadlineMs, recorded.warm),
      warm: recorded.warm,
    };
    this.#takeOver(runId, plan, caveats, options.deadlineMs);
    return this.#runRoot(start, runId, template, { nodes: plan.nodes });
  }

  /**
   * Takes over an interrupted plan run (see `startPlan`): the plan node's template is `template`
   * with the recorded grant met with its own (only ever narrowed) and the recorded limits, the
   * deadline counting only the time the run was active (`deadlineMs` replaces it). With
   * `startOver`, leaves are not matched to their records: each not done starts over.
   */
  continuePlan(
    runId: string,
    template: RootTemplate,
    options: { deadlineMs: number | undefined; startOver: boolean; retry: readonly string[] },
  ): { template: RootTemplate; state: ResumeState } {
    const plan = planResume(this.store, runId, { plan: true });
    const recorded = plan.root.payload;
    const caveats = meetGrant(recorded.caveats, CaveatsSchema.parse(template.caveats ?? {}), {
      cwd: this.cwd,
    });
    this.#takeOver(runId, plan, caveats, options.deadlineMs);
    return {
      template: {
        ...template,
        caveats,
        limits: resumedLimits(recorded.limits, plan.activeMs, options.deadlineMs),
      },
      state: { nodes: plan.nodes, startOver: options.startOver, retry: options.retry },
    };
  }

  /**
   * This process holds the run now; the record says when, and what it took over. The root's record
   * says what the resumed run holds (the grant, narrowed; the deadline, extended by `deadlineMs`),
   * so a later resume starts from that.
   */
  #takeOver(
    runId: string,
    plan: ResumePlan,
    caveats: Caveats,
    deadlineMs: number | undefined,
  ): void {
    // First, so that of two arbors resuming the run at once only one goes on.
    takeOverRun(this.store, runId);
    const recorded = plan.root.payload;
    const deadline = deadlineMs ?? recorded.limits.deadline_ms;
    this.store.updateNode(runId, plan.root.id, {
      payload: {
        ...recorded,
        caveats,
        limits: {
          ...recorded.limits,
          ...(deadline === undefined ? {} : { deadline_ms: deadline }),
        },
      },
    });
    this.store.appendEvent({
      runId,
      ts: Date.now(),
      ...toStoredEvent({
        type: 'run.resumed',
        activeMs: plan.activeMs,
        nodes: plan.nodes.length,
        owner: this.store.owner,
      }),
    });
  }

  #runRoot(
    start: RunStart,
    runId: string,
    template: RootTemplate,
    resume?: ResumeState,
  ): StartedRun {
    const supervisor = this.supervise(start, runId, {}, resume);
    const traceparent = this.#traces.get(supervisor)?.trace.traceparent;
    // Under `capture_content`, every node reports its completions and tool arguments for the spans.
    const capture = this.#options.tracing?.captureContent === true;
    if (traceparent !== undefined)
      template = {
        ...template,
        telemetry: {
          ...template.telemetry,
          traceparent,
          ...(capture ? { log_content: true } : {}),
        },
      };
    const done = supervisor.runRoot(template).then(
      (result) => {
        this.store.finishRun(runId, result.end.outcome.status, Date.now());
        return result;
      },
      (error: unknown) => {
        this.store.finishRun(runId, 'crashed', Date.now());
        throw error;
      },
    );
    this.track(supervisor, done);
    const announced =
      resume !== undefined &&
      template.warm === true &&
      turnAnnounced(this.store.listTranscript(runId, supervisor.tree.nodes()[0]?.id ?? ''));
    return { runId, supervisor, done, warm: template.warm === true, turnOpen: !announced };
  }

  /** Keeps a run's supervisor until `finished` settles (its end recorded), for `close`. */
  track(supervisor: Supervisor, finished: Promise<unknown>): void {
    const settled = finished.then(
      () => undefined,
      () => undefined,
    );
    this.#running.set(supervisor, settled);
    void settled.then(() => {
      this.#running.delete(supervisor);
      const traced = this.#traces.get(supervisor);
      if (traced === undefined) return;
      this.#traces.delete(supervisor);
      traced.trace.end(this.store.getRun(traced.runId)?.status ?? 'crashed');
    });
  }

  /**
   * Stops every run still going (deepest first, through the kill ladder), waits until each is
   * recorded as finished, then closes the store. Nothing is left running.
   */
  async close(): Promise<void> {
    if (this.#closed) return;
    this.#closed = true;
    const running = [...this.#running];
    await Promise.all(running.map(([supervisor]) => supervisor.stopAll('the runtime is closing')));
    await Promise.all(running.map(([, finished]) => finished));
    this.#pool?.close();
    this.store.close();
    await this.#options.fleet?.close();
    // The last spans go out, within a bound: a collector that is down does not hold the exit.
    await this.#options.tracing?.shutdown(TRACE_FLUSH_MS);
  }
}
