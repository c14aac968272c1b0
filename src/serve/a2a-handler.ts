import {
  TaskState,
  type AgentCard,
  type CancelTaskRequest,
  type DeleteTaskPushNotificationConfigRequest,
  type GetTaskPushNotificationConfigRequest,
  type GetTaskRequest,
  type ListTaskPushNotificationConfigsRequest,
  type ListTaskPushNotificationConfigsResponse,
  type ListTasksRequest,
  type ListTasksResponse,
  type Message,
  type SendMessageRequest,
  type StreamResponse,
  type SubscribeToTaskRequest,
  type Task,
  type TaskPushNotificationConfig,
} from '@a2a-js/sdk';
import {
  RequestMalformedError,
  TaskNotFoundError,
  UnsupportedOperationError,
} from '@a2a-js/sdk/errors';
import type { A2ARequestHandler, ServerCallContext } from '@a2a-js/sdk/server';
import type { LiveTask } from './live-task.js';
import type { Notifications } from './notifications.js';
import type { Principal } from './principals.js';
import type { TaskService } from './task-service.js';
import { isFinal } from './task-shapes.js';

/** The principal of a request, as the HTTP layer put it on the call context. */
export const PRINCIPAL_KEY = 'arbor/principal';

/**
 * arbor's A2A request handler: the protocol's methods over the task service. The SDK's
 * `JsonRpcTransportHandler` does the wire (JSON-RPC, the protocol's JSON forms, error codes);
 * this decides what a task is: one run, its state the run's, saved as it changes.
 */
export class ArborA2AHandler implements A2ARequestHandler {
  readonly #card: AgentCard;
  readonly #tasks: TaskService;
  readonly #notifications: Notifications;

  constructor(card: AgentCard, tasks: TaskService, notifications: Notifications) {
    this.#card = card;
    this.#tasks = tasks;
    this.#notifications = notifications;
  }

  getAgentCard(): Promise<AgentCard> {
    return Promise.resolve(this.#card);
  }

  getAuthenticatedExtendedAgentCard(): Promise<AgentCard> {
    return Promise.reject(new UnsupportedOperationError('This agent has no extended card.'));
  }

  async sendMessage(
    params: SendMessageRequest,
    context: ServerCallContext,
  ): Promise<Message | Task> {
    await this.#checkPush(params);
    const live = this.#start(params, context);
    if (params.configuration?.returnImmediately === true) {
      this.#registerPush(params, live);
      return shaped(live.task, params);
    }
    // Attached at once: nothing the task does from its start is missed.
    const updates = live.feed.read(pause, signalOf(context));
    this.#registerPush(params, live);
    // Until the task ends or waits for a person.
    for await (const _ of updates) {
      // Each update is saved as it happens; the reply is the task as it stands.
    }
    await settled(live);
    return shaped(live.task, params);
  }

  async *sendMessageStream(
    params: SendMessageRequest,
    context: ServerCallContext,
  ): AsyncGenerator<StreamResponse> {
    await this.#checkPush(params);
    const live = this.#start(params, context);
    const updates = live.feed.read(pause, signalOf(context));
    this.#registerPush(params, live);
    yield { payload: { $case: 'task', value: shaped(live.task, params) } };
    yield* updates;
  }

  getTask(params: GetTaskRequest, context: ServerCallContext): Promise<Task> {
    const task = this.#tasks.get(params.id, principalOf(context));
    if (task === undefined)
      return Promise.reject(new TaskNotFoundError(`Task not found: ${params.id}`));
    return Promise.resolve(trimHistory(task, params.historyLength));
  }

  listTasks(params: ListTasksRequest, context: ServerCallContext): Promise<ListTasksResponse> {
    const pageSize = params.pageSize ?? 50;
    if (!Number.isInteger(pageSize) || pageSize < 1 || pageSize > 100)
      return Promise.reject(new RequestMalformedError('pageSize must be between 1 and 100.'));
    const after = params.pageToken === '' ? undefined : cursorOf(params.pageToken);
    const updatedAfter =
      params.statusTimestampAfter === undefined
        ? undefined
        : Date.parse(params.statusTimestampAfter);
    if (updatedAfter !== undefined && Number.isNaN(updatedAfter))
      return Promise.reject(
        new RequestMalformedError('statusTimestampAfter must be an ISO 8601 time.'),
      );
    const { tasks, total, last } = this.#tasks.list(principalOf(context), {
      ...(params.contextId === '' ? {} : { contextId: params.contextId }),
      ...(params.status === TaskState.TASK_STATE_UNSPECIFIED ? {} : { state: params.status }),
      ...(updatedAfter === undefined ? {} : { updatedAfter }),
      ...(after === undefined ? {} : { after }),
      limit: pageSize,
    });
    return Promise.resolve({
      tasks: tasks.map((task) => trimHistory(task, params.historyLength)),
      nextPageToken:
        last === undefined || tasks.length < pageSize
          ? ''
          : Buffer.from(`${last.updatedAt}|${last.id}`).toString('base64url'),
      pageSize,
      totalSize: total,
    });
  }

  cancelTask(params: CancelTaskRequest, context: ServerCallContext): Promise<Task> {
    return this.#tasks.cancel(params.id, principalOf(context));
  }

  async *resubscribe(
    params: SubscribeToTaskRequest,
    context: ServerCallContext,
  ): AsyncGenerator<StreamResponse> {
    const task = this.#tasks.get(params.id, principalOf(context));
    if (task === undefined) throw new TaskNotFoundError(`Task not found: ${params.id}`);
    if (isFinal(task.status?.state))
      throw new UnsupportedOperationError(`Task ${params.id} has ended; read it with GetTask.`);
    const live = this.#tasks.liveTask(params.id);
    const updates = live?.feed.read((update) => isFinal(stateOf(update)), signalOf(context));
    yield { payload: { $case: 'task', value: live?.task ?? task } };
    if (updates !== undefined) yield* updates;
  }

  async createTaskPushNotificationConfig(
    params: TaskPushNotificationConfig,
    context: ServerCallContext,
  ): Promise<TaskPushNotificationConfig> {
    this.#visible(params.taskId, context);
    return this.#notifications.register(params.taskId, params);
  }

  getTaskPushNotificationConfig(
    params: GetTaskPushNotificationConfigRequest,
    context: ServerCallContext,
  ): Promise<TaskPushNotificationConfig> {
    this.#visible(params.taskId, context);
    return Promise.resolve(this.#notifications.get(params.taskId, params.id));
  }

  listTaskPushNotificationConfigs(
    params: ListTaskPushNotificationConfigsRequest,
    context: ServerCallContext,
  ): Promise<ListTaskPushNotificationConfigsResponse> {
    this.#visible(params.taskId, context);
    return Promise.resolve({ configs: this.#notifications.list(params.taskId), nextPageToken: '' });
  }

  deleteTaskPushNotificationConfig(
    params: DeleteTaskPushNotificationConfigRequest,
    context: ServerCallContext,
  ): Promise<void> {
    this.#visible(params.taskId, context);
    this.#notifications.delete(params.taskId, params.id);
    return Promise.resolve();
  }

  /** The task, if the caller may see it; else "not found", as for a task that is not there. */
  #visible(taskId: string, context: ServerCallContext): Task {
    const task = this.#tasks.get(taskId, principalOf(context));
    if (task === undefined) throw new TaskNotFoundError(`Task not found: ${taskId}`);
    return task;
  }

  /** A push config given with a message is checked before anything starts. */
  async #checkPush(params: SendMessageRequest): Promise<void> {
    const push = params.configuration?.taskPushNotificationConfig;
    if (push === undefined) return;
    await this.#notifications.check(push.url);
  }

  /** The push config given with the message (its URL already checked), kept with the new task. */
  #registerPush(params: SendMessageRequest, live: LiveTask): void {
    const push = params.configuration?.taskPushNotificationConfig;
    if (push !== undefined) this.#notifications.save(live.task, push);
  }

  /** A new task, or the reply to the question a task waits on. */
  #start(params: SendMessageRequest, context: ServerCallContext): LiveTask {
    const message = params.message;
    if (message === undefined) throw new RequestMalformedError('params.message is required.');
    if (message.messageId === '') throw new RequestMalformedError('message.messageId is required.');
    const principal = principalOf(context);
    const traceparent = context.state.get(TRACEPARENT_KEY);
    return message.taskId === ''
      ? this.#tasks.create(
          message,
          principal,
          typeof traceparent === 'string' ? traceparent : undefined,
        )
      : this.#tasks.reply(message.taskId, message, principal);
  }
}

/** The caller's W3C `traceparent` header, when it sent one. */
export const TRACEPARENT_KEY = 'arbor/traceparent';

/** Aborted when the caller goes away (the HTTP layer puts it on the call context). */
export const SIGNAL_KEY = 'arbor/signal';

function signalOf(context: ServerCallContext): AbortSignal | undefined {
  const signal = context.state.get(SIGNAL_KEY);
  return signal instanceof AbortSignal ? signal : undefined;
}

function principalOf(context: ServerCallContext): Principal {
  const principal = context.state.get(PRINCIPAL_KEY) as Principal | undefined;
  // The HTTP layer lets no request without a principal reach the handler.
  if (principal === undefined) throw new UnsupportedOperationError('Unauthenticated.');
  return principal;
}

function stateOf(update: StreamResponse): TaskState | undefined {
  const payload = update.payload;
  if (payload?.$case === 'statusUpdate') return payload.value.status?.state;
  if (payload?.$case === 'task') return payload.value.status?.state;
  return undefined;
}

/** Where a stream of a send stops: the task ended, or waits for a person. */
function pause(update: StreamResponse): boolean {
  // A progress update (`arbor/event`) repeats the state; only a change of state stops.
  if (
    update.payload?.$case === 'statusUpdate' &&
    update.payload.value.metadata?.['arbor/event'] !== undefined
  )
    return false;
  const state = stateOf(update);
  return isFinal(state) || state === TaskState.TASK_STATE_INPUT_REQUIRED;
}

/** A blocking send returns once the task ended (its run recorded) or waits for a person. */
async function settled(live: LiveTask): Promise<void> {
  if (isFinal(live.state)) await live.done;
}

function shaped(task: Task, params: SendMessageRequest): Task {
  return trimHistory(task, params.configuration?.historyLength);
}

/** `historyLength`: the last N messages (0: none; absent: all). */
function trimHistory(task: Task, historyLength: number | undefined): Task {
  if (historyLength === undefined) return task;
  return { ...task, history: historyLength <= 0 ? [] : task.history.slice(-historyLength) };
}

function cursorOf(token: string): { updatedAt: number; id: string } {
  const [at, ...id] = Buffer.from(token, 'base64url').toString('utf8').split('|');
  const updatedAt = Number(at);
  if (id.length === 0 || !Number.isSafeInteger(updatedAt))
    throw new RequestMalformedError('pageToken is not one this server gave.');
  return { updatedAt, id: id.join('|') };
}
