import { randomUUID } from 'node:crypto';
import { StreamResponse, TaskPushNotificationConfig, TaskState, type Task } from '@a2a-js/sdk';
import { RequestMalformedError, TaskNotFoundError } from '@a2a-js/sdk/errors';
import type { SqliteTasks } from '../store/sqlite-tasks.js';
import type { OpenGate } from './live-task.js';
import type { Webhooks } from './webhooks.js';

/** The header a push notification's `token` is sent in (A2A). */
const TOKEN_HEADER = 'X-A2A-Notification-Token';
/** Push configs one task may have. */
const MAX_CONFIGS_PER_TASK = 10;

/**
 * Telling people and systems what tasks do without their watching: A2A push notifications (each
 * task's configs, kept in the store; a POST of the task, in the protocol's JSON, whenever its
 * state changes) and the `[serve] on_gate` webhook (a POST whenever a task waits for a person).
 * URLs are checked against SSRF when a config is made and again at every delivery.
 */
export class Notifications {
  readonly #store: SqliteTasks;
  readonly #webhooks: Webhooks;
  readonly #onGate: { url: string; token?: string } | undefined;
  /** What each task's last notification said (its state and status message), not to repeat it. */
  readonly #lastState = new Map<string, string>();

  constructor(
    store: SqliteTasks,
    webhooks: Webhooks,
    onGate: { url: string; token?: string } | undefined,
  ) {
    this.#store = store;
    this.#webhooks = webhooks;
    this.#onGate = onGate;
  }

  /** Refuses a URL push notifications may not go to, saying why. */
  async check(url: string): Promise<void> {
    if (url === '') throw new RequestMalformedError('A push notification config needs a `url`.');
    const refused = await this.#webhooks.check(url);
    if (refused !== undefined)
      throw new RequestMalformedError(`Push notifications cannot go to ${url}: ${refused}.`);
  }

  /**
   * Keeps a config whose URL was just checked with the task it was given for, and tells it the
   * task as it stands (it missed the start).
   */
  save(task: Task, config: TaskPushNotificationConfig): void {
    const saved = this.#keep(task.id, config);
    void this.#webhooks.send(saved.url, taskBody(task), authHeaders(saved));
  }

  async register(
    taskId: string,
    config: TaskPushNotificationConfig,
  ): Promise<TaskPushNotificationConfig> {
    await this.check(config.url);
    return this.#keep(taskId, config);
  }

  #keep(taskId: string, config: TaskPushNotificationConfig): TaskPushNotificationConfig {
    if (this.list(taskId).length >= MAX_CONFIGS_PER_TASK)
      throw new RequestMalformedError(
        `Task ${taskId} has ${MAX_CONFIGS_PER_TASK} push notification configs, the most it may have.`,
      );
    const saved: TaskPushNotificationConfig = {
      ...config,
      taskId,
      id: config.id === '' ? randomUUID() : config.id,
    };
    this.#store.putPush(taskId, saved.id, TaskPushNotificationConfig.toJSON(saved));
    return saved;
  }

  list(taskId: string): TaskPushNotificationConfig[] {
    return this.#store.listPush(taskId).map((json) => TaskPushNotificationConfig.fromJSON(json));
  }

  get(taskId: string, id: string): TaskPushNotificationConfig {
    const found = this.list(taskId).find((config) => config.id === id);
    if (found === undefined)
      throw new TaskNotFoundError(`No push notification config \`${id}\` on task ${taskId}.`);
    return found;
  }

  /** Deletes a config; one already gone is not an error (a retried delete succeeds). */
  delete(taskId: string, id: string): void {
    this.#store.deletePush(taskId, id);
  }

  /** A task was saved: when its state changed, each of its push configs is told. */
  taskChanged(task: Task): void {
    const state = task.status?.state;
    // One question after another is a change too: the status message says which.
    const said = `${String(state)}:${task.status?.message?.messageId ?? ''}`;
    if (this.#lastState.get(task.id) === said) return;
    this.#lastState.set(task.id, said);
    if (
      state === TaskState.TASK_STATE_COMPLETED ||
      state === TaskState.TASK_STATE_FAILED ||
      state === TaskState.TASK_STATE_CANCELED ||
      state === TaskState.TASK_STATE_REJECTED
    )
      this.#lastState.delete(task.id);
    const configs = this.list(task.id);
    if (configs.length === 0) return;
    const body = taskBody(task);
    for (const config of configs) void this.#webhooks.send(config.url, body, authHeaders(config));
  }

  /** A task waits for a person: the `on_gate` webhook is told who asks what. */
  gateOpened(task: Task, gate: OpenGate): void {
    if (this.#onGate === undefined) return;
    const body = JSON.stringify({
      event: 'gate.opened',
      task_id: task.id,
      context_id: task.contextId,
      // `arbor/run_id` is how tasks stored before 0.2 name it.
      run_id: (task.metadata?.['arbor/runId'] ?? task.metadata?.['arbor/run_id']) as unknown,
      principal: task.metadata?.['arbor/principal'] as unknown,
      gate: gate.id,
      question: gate.question,
      ...(gate.choices === undefined ? {} : { choices: gate.choices }),
      ...(gate.node === undefined ? {} : { node: gate.node }),
    });
    const token = this.#onGate.token;
    void this.#webhooks.send(
      this.#onGate.url,
      body,
      token === undefined ? {} : { authorization: `Bearer ${token}` },
    );
  }
}

function authHeaders(config: TaskPushNotificationConfig): Record<string, string> {
  const auth = config.authentication;
  if (auth !== undefined && auth.scheme !== '' && auth.credentials !== '')
    return { authorization: `${auth.scheme} ${auth.credentials}` };
  return config.token === '' ? {} : { [TOKEN_HEADER]: config.token };
}

/** A push notification's body: the task, as the protocol's JSON writes a stream response. */
function taskBody(task: Task): string {
  return JSON.stringify(StreamResponse.toJSON({ payload: { $case: 'task', value: task } }));
}
