import { TaskState, type Artifact, type Task, type TaskStatus } from '@a2a-js/sdk';
import type { RunHandle } from '../api/run-handle.js';
import type { ArborEvent } from '../runtime/index.js';
import { TaskFeed } from './task-feed.js';
import {
  agentMessage,
  answerArtifact,
  isFinal,
  stateOfStatus,
  textPart,
  usageMetadata,
} from './task-shapes.js';

/** A question the task waits on: a gate of its run. */
export interface OpenGate {
  id: string;
  question: string;
  choices?: string[];
  node?: string;
}

/** What a live task tells the server about itself. */
export interface LiveTaskHooks {
  /** Writes the task (created or changed) with the tokens its run has used so far. */
  save(task: Task, tokens: number): void;
  /** Every event of the run, for metrics. */
  observe(event: ArborEvent): void;
  /** A gate opened and the task now waits for a person. */
  gateOpened(task: Task, gate: OpenGate): void;
  /** The run ended and the task is final (or the server stopped following it). */
  ended(task: Task): void;
  /** A hook failed while the task followed its run (the task goes on). */
  failed?(error: unknown): void;
}

/** Run events a task's readers see as progress (`arbor/event` in a WORKING status update). */
const PROGRESS = new Set<ArborEvent['type']>([
  'node.spawned',
  'node.end',
  'tool.call',
  'tool.result',
  'usage',
  'node.resumed',
  'node.restart',
]);

/**
 * One A2A task and the run doing it: the run's events become the task's status (WORKING, then
 * INPUT_REQUIRED while a gate waits for a person, then how the run ended) and progress updates
 * for its readers; the run's answer becomes its artifact. Every change of state is saved before
 * any reader sees it.
 */
export class LiveTask {
  readonly feed = new TaskFeed();
  readonly runId: string;
  readonly owner: string;
  readonly #handle: RunHandle;
  readonly #hooks: LiveTaskHooks;
  #task: Task;
  readonly #gates: OpenGate[] = [];
  #tokens = 0;
  /**
   * Whether the root's streamed answer has a chunk out for the step under way: the next chunk is
   * appended to it (`append: true`); a new step, or a `text.reset`, starts it over.
   */
  #streaming = false;
  /** Resolves once the run has ended and the task is final. */
  readonly done: Promise<void>;

  /** `started` is the status text of the task as it starts working (saved before anything else). */
  constructor(
    task: Task,
    owner: string,
    handle: RunHandle,
    hooks: LiveTaskHooks,
    started: string,
    tokens = 0,
  ) {
    this.#task = task;
    this.#tokens = tokens;
    this.owner = owner;
    this.#handle = handle;
    this.runId = handle.runId;
    this.#hooks = hooks;
    this.#task.metadata = { ...task.metadata, 'arbor/runId': handle.runId };
    this.#setStatus(TaskState.TASK_STATE_WORKING, started);
    this.done = this.#follow();
  }

  get task(): Task {
    return structuredClone(this.#task);
  }

  /** Tokens its run has used so far. */
  get tokens(): number {
    return this.#tokens;
  }

  get state(): TaskState | undefined {
    return this.#task.status?.state;
  }

  /** The question the task shows now, if it waits for one. */
  get waitingOn(): OpenGate | undefined {
    return this.#gates[0];
  }

  /** A person's reply to the question shown: the message joins the history and answers the gate. */
  answer(gate: OpenGate, reply: Task['history'][number], text: string): void {
    this.#handle.answerGate(gate.id, text);
    this.#task.history.push(reply);
    // Answered now, not when the run says so: a reader of the reply sees the task going on.
    this.#closeGate(gate.id);
  }

  /** Cancels the whole tree; resolves once the task is final. */
  async cancel(reason: string): Promise<void> {
    await this.#handle.cancel(reason);
    await this.done;
  }

  async #follow(): Promise<void> {
    for await (const event of this.#handle.events) {
      try {
        this.#onEvent(event);
      } catch (error) {
        // A hook that failed (a store write, a notification) costs this event, not the others.
        this.#hooks.failed?.(error);
      }
    }
    let artifact;
    let state: TaskState;
    let why: string;
    try {
      const result = await this.#handle.result;
      state = stateOfStatus(result.status);
      why =
        result.status === 'completed'
          ? result.text
          : `The run ended ${result.status}${result.reason === undefined ? '' : `: ${result.reason.replace(/\.$/, '')}`}.`;
      this.#task.metadata = {
        ...this.#task.metadata,
        'arbor/status': result.status,
        'arbor/usage': usageMetadata(result.subtreeUsage),
      };
      this.#tokens = result.subtreeUsage.input_tokens + result.subtreeUsage.output_tokens;
      if (result.status === 'completed' || result.text !== '')
        artifact = answerArtifact(result.text, result.structured);
    } catch (error) {
      state = TaskState.TASK_STATE_FAILED;
      why = `The run could not start: ${error instanceof Error ? error.message : String(error)}`;
    }
    try {
      if (artifact !== undefined) this.#finishArtifact(artifact);
      this.#gates.length = 0;
      this.#setStatus(state, why);
    } catch (error) {
      this.#hooks.failed?.(error);
    } finally {
      // Readers and the server's count of live tasks are let go whatever failed above.
      this.feed.close();
      this.#hooks.ended(this.task);
    }
  }

  /** The run's answer as the task's artifact: saved, then told to its readers. */
  #finishArtifact(artifact: Artifact): void {
    this.#task.artifacts = [artifact];
    this.#hooks.save(this.#task, this.#tokens);
    this.#pushArtifact(artifact, false, true);
  }

  /** Tells the task's readers of (a chunk of) its artifact. */
  #pushArtifact(artifact: Artifact, append: boolean, lastChunk: boolean): void {
    this.feed.push({
      payload: {
        $case: 'artifactUpdate',
        value: {
          taskId: this.#task.id,
          contextId: this.#task.contextId,
          artifact,
          append,
          lastChunk,
          metadata: undefined,
        },
      },
    });
  }

  #onEvent(event: ArborEvent): void {
    this.#hooks.observe(event);
    if (event.path === '0' && !isFinal(this.state)) {
      if (event.type === 'text.delta') this.#streamChunk(event.text);
      else if (event.type === 'loop.step' || event.type === 'text.reset') this.#streaming = false;
    }
    if (event.type === 'usage') this.#tokens += event.inputTokens + event.outputTokens;
    if (event.type === 'gate.opened' && event.gate !== undefined) {
      const gate: OpenGate = {
        id: event.gate,
        question: event.question ?? `May ${event.tool ?? 'the agent'} go on?`,
        ...(event.choices === undefined ? {} : { choices: event.choices }),
        ...(event.path === undefined ? {} : { node: event.path }),
      };
      this.#gates.push(gate);
      if (this.#gates.length === 1) this.#showGate(gate);
      return;
    }
    if (event.type === 'gate.closed') {
      if (event.gate !== undefined) this.#closeGate(event.gate);
      return;
    }
    if (PROGRESS.has(event.type) && !isFinal(this.state)) this.#progress(event);
  }

  /** A gate was answered (or withdrawn): the next one is asked, or the task works on. */
  #closeGate(id: string): void {
    const at = this.#gates.findIndex((gate) => gate.id === id);
    if (at < 0) return;
    this.#gates.splice(at, 1);
    if (at !== 0) return;
    const next = this.#gates[0];
    if (next === undefined) this.#setStatus(TaskState.TASK_STATE_WORKING, 'Answered; working.');
    else this.#showGate(next);
  }

  #showGate(gate: OpenGate): void {
    const choices = gate.choices === undefined ? '' : ` (${gate.choices.join(' / ')})`;
    this.#setStatus(TaskState.TASK_STATE_INPUT_REQUIRED, `${gate.question}${choices}`, {
      'arbor/gate': gate.id,
      ...(gate.choices === undefined ? {} : { 'arbor/choices': gate.choices }),
      ...(gate.node === undefined ? {} : { 'arbor/node': gate.node }),
    });
    this.#hooks.gateOpened(this.task, gate);
  }

  /**
   * A piece of the root's answer as it is written, as an update of the answer artifact: the first
   * of a step replaces what the artifact held (`append: false`), the rest are appended to it, and
   * none is the last chunk — the final answer, sent whole when the run ends, is (a step's text may
   * be thinking aloud before a delegation, which the answer is not).
   */
  #streamChunk(text: string): void {
    if (text === '') return;
    const append = this.#streaming;
    this.#streaming = true;
    this.#pushArtifact(answerArtifact(text, undefined), append, false);
  }

  /** A progress update: the state is unchanged and not saved; readers see what happened. */
  #progress(event: ArborEvent): void {
    const { ts: _ts, runId: _run, ...fields } = event;
    this.feed.push({
      payload: {
        $case: 'statusUpdate',
        value: {
          taskId: this.#task.id,
          contextId: this.#task.contextId,
          status: {
            state: this.#task.status?.state ?? TaskState.TASK_STATE_WORKING,
            message: undefined,
            timestamp: event.ts,
          },
          metadata: { 'arbor/event': fields },
        },
      },
    });
  }

  #setStatus(state: TaskState, text: string, metadata?: Record<string, unknown>): void {
    const status: TaskStatus = {
      state,
      message: agentMessage(this.#task, [textPart(text)], metadata),
      timestamp: new Date().toISOString(),
    };
    this.#task.status = status;
    this.#save();
    this.feed.push({
      payload: {
        $case: 'statusUpdate',
        value: {
          taskId: this.#task.id,
          contextId: this.#task.contextId,
          status,
          // The last update says how the run ended and what it used, as the task does.
          metadata: isFinal(state)
            ? { ...this.#task.metadata, 'arbor/runId': this.runId }
            : { 'arbor/runId': this.runId },
        },
      },
    });
  }

  #save(): void {
    this.#hooks.save(this.#task, this.#tokens);
  }
}
