import { randomUUID } from 'node:crypto';
import { Role, Task, TaskState, type Message } from '@a2a-js/sdk';
import {
  RequestMalformedError,
  TaskNotCancelableError,
  TaskNotFoundError,
  UnsupportedOperationError,
} from '@a2a-js/sdk/errors';
import type { Arbor } from '../api/arbor.js';
import type { RunHandle } from '../api/run-handle.js';
import type { ArborEvent } from '../runtime/index.js';
import type { SqliteStore, TaskRecord } from '../store/index.js';
import { LiveTask, type OpenGate } from './live-task.js';
import { readMessage, taskInstruction } from './message-input.js';
import type { Principal } from './principals.js';
import type { ServeMetrics } from './serve-metrics.js';
import type { TaskInbox } from './task-inbox.js';
import {
  agentMessage,
  isFinal,
  LIVE_STATES,
  newTask,
  stateOfStatus,
  textPart,
} from './task-shapes.js';

const DAY_MS = 24 * 60 * 60 * 1000;

/** What started a run, as `arbor_runs_started_total` counts it. */
export type RunSource = 'a2a' | 'resume' | 'trigger' | 'schedule';

/** Thrown when a task cannot start now; the HTTP layer answers it as the protocol's error. */
class TaskRefused extends UnsupportedOperationError {}

export interface TaskServiceOptions {
  arbor: Arbor;
  store: SqliteStore;
  metrics: ServeMetrics;
  /** Runs going at once, across principals. */
  maxRuns: number;
  /** Where the files sent with a task are saved, and the largest one taken (bytes). */
  inbox: TaskInbox;
  maxFileBytes: number;
  /** A task waits for a person (the `on_gate` webhook, push notifications). */
  onGate?(task: Task, gate: OpenGate): void;
  /** A task's state changed (push notifications). */
  onChange?(task: Task): void;
  /** Every event of every run (after the metrics have counted it). */
  onEvent?(event: ArborEvent): void;
  /** A problem worth an operator's eye (a task's record that could not be written). */
  warn?(line: string): void;
  /** The configured principal of this name, whose limits bind the runs its schedules start. */
  principal?(name: string): Principal | undefined;
}

/**
 * The tasks of `arbor serve`: one run per task, many at once, on one `Arbor`. A task is saved
 * before its acceptance is answered and on every change of state after, so every task, finished
 * or not, can be read back after a restart, and the running ones are taken up again.
 */
export class TaskService {
  readonly #o: TaskServiceOptions;
  readonly #live = new Map<string, LiveTask>();
  #draining = false;
  #lookAgain: NodeJS.Timeout | undefined;

  constructor(options: TaskServiceOptions) {
    this.#o = options;
  }

  get activeRuns(): number {
    return this.#live.size;
  }

  get atCapacity(): boolean {
    return this.#live.size >= this.#o.maxRuns;
  }

  get draining(): boolean {
    return this.#draining;
  }

  /** Live tasks, for drain. */
  get live(): LiveTask[] {
    return [...this.#live.values()];
  }

  /** Starts a task on a message: its run starts and the task is saved, WORKING, before this returns. */
  create(message: Message, principal: Principal, traceparent?: string): LiveTask {
    const input = readMessage(message, { maxFileBytes: this.#o.maxFileBytes, allowFiles: true });
    if (input.text.trim() === '' && input.files.length === 0)
      throw new RequestMalformedError(
        'The message has no text, data or file part: say what the agent is to do.',
      );
    this.#admit(principal);
    const id = randomUUID();
    // The task's node may read its own inbox directory, and no other.
    const inbox = input.files.length === 0 ? undefined : this.#o.inbox.save(id, input.files);
    const instruction = taskInstruction(input.text.trim(), inbox?.saved ?? []);
    const contextId = message.contextId === '' ? randomUUID() : message.contextId;
    const task = newTask(
      id,
      contextId,
      { ...message, taskId: id, contextId },
      {
        'arbor/principal': principal.name,
      },
    );
    return this.#follow(
      task,
      principal.name,
      this.#o.arbor.run(instruction, {
        ...(traceparent === undefined ? {} : { traceparent }),
        ...(inbox === undefined ? {} : { grantRead: [inbox.dir] }),
      }),
      'a2a',
      'The run started.',
    );
  }

  /**
   * A task the server starts itself (a trigger, or a run an agent scheduled): owned by `owner`,
   * within the server's capacity and drain, and the owner's limits when it is a principal.
   */
  startBy(
    owner: string,
    instruction: string,
    source: 'trigger' | 'schedule',
    metadata: Record<string, unknown>,
  ): LiveTask {
    this.#admit(this.#o.principal?.(owner) ?? { name: owner, role: 'operator' });
    const id = randomUUID();
    const contextId = randomUUID();
    const message: Message = {
      messageId: randomUUID(),
      contextId,
      taskId: id,
      role: Role.ROLE_USER,
      parts: [textPart(instruction)],
      metadata: undefined,
      extensions: [],
      referenceTaskIds: [],
    };
    const task = newTask(id, contextId, message, { 'arbor/principal': owner, ...metadata });
    return this.#follow(task, owner, this.#o.arbor.run(instruction), source, 'The run started.');
  }

  /** A message on an existing task: the answer to the question it waits on. */
  reply(taskId: string, message: Message, principal: Principal): LiveTask {
    const stored = this.#visible(taskId, principal);
    if (stored === undefined) throw new TaskNotFoundError(`Task not found: ${taskId}`);
    if (isFinal(stored.status?.state))
      throw new UnsupportedOperationError(
        `Task ${taskId} has ended (${TaskState[stored.status?.state ?? 0]}); send a new message without a taskId to start another.`,
      );
    if (message.contextId !== '' && message.contextId !== stored.contextId)
      throw new RequestMalformedError(
        `contextId mismatch: the message says ${message.contextId}, task ${taskId} is in ${stored.contextId}.`,
      );
    const live = this.#live.get(taskId);
    const gate = live?.waitingOn;
    if (live === undefined || gate === undefined)
      throw new UnsupportedOperationError(
        `Task ${taskId} is not waiting for input (it is ${TaskState[stored.status?.state ?? 0]}); a message on a task answers its question.`,
      );
    const text = readMessage(message, { maxFileBytes: 0, allowFiles: false }).text.trim();
    if (text === '') throw new RequestMalformedError('The reply has no text or data part.');
    live.answer(gate, { ...message, taskId, contextId: stored.contextId }, text);
    return live;
  }

  /** A task as its principal may see it: operators see every task, users their own. */
  get(taskId: string, principal: Principal): Task | undefined {
    return this.#visible(taskId, principal);
  }

  list(
    principal: Principal,
    filter: {
      contextId?: string;
      state?: number;
      updatedAfter?: number;
      after?: { updatedAt: number; id: string };
      limit: number;
    },
  ): { tasks: Task[]; total: number; last: TaskRecord | undefined } {
    const owner = principal.role === 'operator' ? undefined : principal.name;
    const scope = { ...(owner === undefined ? {} : { owner }), ...filter };
    const records = this.#o.store.tasks.list(scope);
    return {
      tasks: records.map((record) => this.#live.get(record.id)?.task ?? Task.fromJSON(record.task)),
      total: this.#o.store.tasks.count(scope),
      last: records.at(-1),
    };
  }

  /** Cancels a task's whole tree; resolves with the task once it is final. */
  async cancel(taskId: string, principal: Principal): Promise<Task> {
    const stored = this.#visible(taskId, principal);
    if (stored === undefined) throw new TaskNotFoundError(`Task not found: ${taskId}`);
    const state = stored.status?.state;
    if (state === TaskState.TASK_STATE_CANCELED) return stored;
    if (isFinal(state)) throw new TaskNotCancelableError(`Task ${taskId} has already ended.`);
    const live = this.#live.get(taskId);
    if (live === undefined)
      throw new TaskNotCancelableError(`Task ${taskId} has no run going on this server.`);
    await live.cancel(`cancelled over A2A by ${principal.name}`);
    return live.task;
  }

  /** The principal whose task a run is, while it runs here. */
  ownerOf(runId: string): string | undefined {
    return this.live.find((task) => task.runId === runId)?.owner;
  }

  /** The live task, if its run is going here. */
  liveTask(taskId: string): LiveTask | undefined {
    return this.#live.get(taskId);
  }

  /**
   * Takes up the tasks another server left unfinished (a previous one, or one on the same store
   * that died): runs whose supervisor is gone are marked interrupted, and runs left interrupted are
   * resumed, each only if no other arbor is taking it up; runs that ended after it last wrote the
   * task settle the task from their record. Returns how many runs were resumed.
   */
  takeUp(): number {
    if (this.#draining) return 0;
    this.#o.store.reapInterrupted();
    let resumed = 0;
    for (const record of this.#o.store.tasks.inStates(LIVE_STATES)) {
      if (this.#live.has(record.id)) continue;
      const task = Task.fromJSON(record.task);
      const run = record.runId === undefined ? undefined : this.#o.store.getRun(record.runId);
      if (run?.status === 'interrupted' && record.runId !== undefined) {
        // Held for this server before its resume starts: another server looking too skips it.
        if (!this.#o.store.reserveRun(record.runId)) continue;
        this.#follow(
          task,
          record.owner,
          this.#o.arbor.resume(record.runId),
          'resume',
          'The run resumed after a restart.',
          record.tokens,
        );
        resumed++;
      } else if (run !== undefined && run.status !== 'running') {
        this.#settle(record, task, stateOfStatus(run.status), `The run ended ${run.status}.`);
      } else if (run === undefined) {
        this.#settle(
          record,
          task,
          TaskState.TASK_STATE_FAILED,
          'The server stopped before the run started.',
        );
      }
    }
    return resumed;
  }

  /**
   * Takes up again every `everyMs` (see `takeUp`), so a task whose server died while this one runs
   * (its process gone, or its lease run out) is not left working forever. Stops on drain.
   */
  keepTakingUp(everyMs: number): void {
    this.#lookAgain ??= setInterval(() => {
      try {
        const resumed = this.takeUp();
        if (resumed > 0)
          this.#o.warn?.(`resumed ${resumed} task run(s) a server on this store left`);
      } catch (error) {
        this.#o.warn?.(
          `looking for abandoned task runs: ${error instanceof Error ? error.message : String(error)}`,
        );
      }
    }, everyMs).unref();
  }

  /** No new task from now on, and no task taken up. */
  drain(): void {
    this.#draining = true;
    clearInterval(this.#lookAgain);
  }

  /** Cancels every live task's tree; resolves once each is final and saved. */
  async cancelAll(reason: string): Promise<void> {
    this.drain();
    await Promise.all(this.live.map((task) => task.cancel(reason)));
  }

  #admit(principal: Principal): void {
    const refuse = (reason: Parameters<ServeMetrics['taskRefused']>[0], why: string): never => {
      this.#o.metrics.taskRefused(reason);
      throw new TaskRefused(why);
    };
    if (this.#draining) refuse('draining', 'The server is draining: it takes no new task.');
    if (this.atCapacity)
      refuse('capacity', `The server is at capacity (${this.#o.maxRuns} runs); try again later.`);
    if (principal.maxRuns !== undefined) {
      const mine = this.live.filter((task) => task.owner === principal.name).length;
      if (mine >= principal.maxRuns)
        refuse('principal_runs', `${principal.name} has ${mine} runs going, its limit (max_runs).`);
    }
    if (principal.tokensPerDay !== undefined) {
      // Finished tasks as stored; live ones as they stand now (their stored count lags).
      const live = this.live.filter((task) => task.owner === principal.name);
      const stored = live.reduce(
        (sum, task) => sum + (this.#o.store.tasks.get(task.task.id)?.tokens ?? 0),
        0,
      );
      const used =
        this.#o.store.tasks.tokensSince(principal.name, Date.now() - DAY_MS) -
        stored +
        live.reduce((sum, task) => sum + task.tokens, 0);
      if (used >= principal.tokensPerDay)
        refuse(
          'principal_tokens',
          `${principal.name} has used ${used} tokens in the last 24 hours, its limit (tokens_per_day).`,
        );
    }
  }

  #follow(
    task: Task,
    owner: string,
    handle: RunHandle,
    source: RunSource,
    started: string,
    tokens = 0,
  ): LiveTask {
    this.#o.metrics.runStarted(source);
    const createdAt = Date.now();
    const live = new LiveTask(
      task,
      owner,
      handle,
      {
        save: (current, tokens) => {
          this.#o.store.tasks.put({
            id: current.id,
            contextId: current.contextId,
            runId: handle.runId,
            owner,
            state: current.status?.state ?? TaskState.TASK_STATE_SUBMITTED,
            task: Task.toJSON(current),
            tokens,
            createdAt,
            updatedAt: Date.now(),
          });
          this.#o.onChange?.(current);
        },
        observe: (event) => {
          this.#o.metrics.observe(event);
          this.#o.onEvent?.(event);
        },
        gateOpened: (current, gate) => {
          this.#o.onGate?.(current, gate);
        },
        failed: (error) => {
          this.#o.warn?.(
            `task ${task.id}: ${error instanceof Error ? error.message : String(error)}`,
          );
        },
        ended: (current) => {
          this.#live.delete(current.id);
          const status: unknown = current.metadata?.['arbor/status'];
          this.#o.metrics.runFinished(typeof status === 'string' ? status : 'failed');
        },
      },
      started,
      tokens,
    );
    this.#live.set(task.id, live);
    return live;
  }

  #settle(record: TaskRecord, task: Task, state: TaskState, why: string): void {
    task.status = {
      state,
      message: agentMessage(task, [textPart(why)]),
      timestamp: new Date().toISOString(),
    };
    this.#o.store.tasks.put({ ...record, state, task: Task.toJSON(task), updatedAt: Date.now() });
  }

  #visible(taskId: string, principal: Principal): Task | undefined {
    const live = this.#live.get(taskId);
    if (live !== undefined)
      return principal.role === 'operator' || live.owner === principal.name ? live.task : undefined;
    const record = this.#o.store.tasks.get(taskId);
    if (record === undefined) return undefined;
    if (principal.role !== 'operator' && record.owner !== principal.name) return undefined;
    return Task.fromJSON(record.task);
  }
}
