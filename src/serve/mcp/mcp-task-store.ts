import { randomUUID } from 'node:crypto';
import type {
  CreateTaskOptions,
  TaskStore,
} from '@modelcontextprotocol/sdk/experimental/tasks/interfaces.js';
import {
  CallToolResultSchema,
  TaskStatusSchema,
  type CallToolResult,
  type Request,
  type RequestId,
  type Result,
  type Task,
} from '@modelcontextprotocol/sdk/types.js';
import type { McpTaskRecord, SqliteStore } from '../../store/index.js';

type TaskStatus = Task['status'];

const DAY_MS = 24 * 60 * 60 * 1000;
/** How long a task is kept when its caller names no time to live, and the most it may name. */
const DEFAULT_TTL_MS = DAY_MS;
const MAX_TTL_MS = 30 * DAY_MS;
/** How often a caller is told to poll: a fake-model run ends within a few of these. */
const POLL_MS = 250;
const PAGE = 50;
/** How long a run may take to be recorded after its task was (another server's, starting). */
const STARTING_MS = 60_000;

const TERMINAL: readonly TaskStatus[] = ['completed', 'failed', 'cancelled'];

function isTerminalStatus(status: TaskStatus): boolean {
  return TERMINAL.includes(status);
}

/**
 * MCP's `TaskStore` over arbor's run store (`mcp_tasks`): a task, its status and its result are
 * written as they change, so `tasks/get` and `tasks/result` answer after a restart. A task set to
 * `cancelled` (`tasks/cancel`, or its host gone) cancels its run's tree before the call returns.
 */
export class ArborTaskStore implements TaskStore {
  readonly #store: SqliteStore;
  readonly #cancelRun: (taskId: string, reason: string) => Promise<void>;
  readonly #owner: string | undefined;

  /**
   * `owner` (a principal of `arbor serve`) stands for the transport's session: a caller sees its
   * tasks from any session it opens, and never another's.
   */
  constructor(
    store: SqliteStore,
    cancelRun: (taskId: string, reason: string) => Promise<void>,
    owner?: string,
  ) {
    this.#store = store;
    this.#cancelRun = cancelRun;
    this.#owner = owner;
  }

  createTask(
    params: CreateTaskOptions,
    _requestId: RequestId,
    request: Request,
    sessionId?: string,
  ): Promise<Task> {
    const now = Date.now();
    const name = request.params?.name;
    const runId = params.context?.runId;
    const session = this.#owner ?? sessionId;
    const record: McpTaskRecord = {
      id: randomUUID(),
      ...(session === undefined ? {} : { session }),
      status: 'working',
      ttlMs: Math.min(params.ttl ?? DEFAULT_TTL_MS, MAX_TTL_MS),
      pollMs: POLL_MS,
      tool: typeof name === 'string' ? name : request.method,
      ...(typeof runId === 'string' ? { runId } : {}),
      createdAt: now,
      updatedAt: now,
    };
    this.#store.tasks.mcp.put(record);
    return Promise.resolve(taskOf(record));
  }

  getTask(taskId: string, sessionId?: string): Promise<Task | null> {
    const record = this.#visible(taskId, sessionId);
    return Promise.resolve(record === undefined ? null : taskOf(record));
  }

  /** A result stored for a task already cancelled is kept with it; its status stays `cancelled`. */
  storeTaskResult(
    taskId: string,
    status: 'completed' | 'failed',
    result: Result,
    sessionId?: string,
  ): Promise<void> {
    const record = this.#found(taskId, sessionId);
    const ended = isTerminalStatus(statusOf(record));
    this.#store.tasks.mcp.put({
      ...record,
      status: ended ? record.status : status,
      result,
      updatedAt: Date.now(),
    });
    return Promise.resolve();
  }

  getTaskResult(taskId: string, sessionId?: string): Promise<Result> {
    const record = this.#found(taskId, sessionId);
    const stored = CallToolResultSchema.safeParse(record.result);
    if (stored.success) return Promise.resolve(stored.data);
    if (!isTerminalStatus(statusOf(record)))
      return Promise.reject(new Error(`Task ${taskId} has no result yet: it is ${record.status}.`));
    const ended: CallToolResult = {
      content: [{ type: 'text', text: record.statusMessage ?? `The task ${record.status}.` }],
      isError: true,
    };
    return Promise.resolve(ended);
  }

  async updateTaskStatus(
    taskId: string,
    status: TaskStatus,
    statusMessage?: string,
    sessionId?: string,
  ): Promise<void> {
    const record = this.#found(taskId, sessionId);
    if (isTerminalStatus(statusOf(record)))
      throw new Error(`Task ${taskId} has ended (${record.status}); it cannot become ${status}.`);
    const { statusMessage: _old, ...rest } = record;
    this.#store.tasks.mcp.put({
      ...rest,
      status,
      ...(statusMessage === undefined ? {} : { statusMessage }),
      updatedAt: Date.now(),
    });
    if (status === 'cancelled') await this.#cancelRun(taskId, statusMessage ?? 'cancelled');
  }

  listTasks(cursor?: string, sessionId?: string): Promise<{ tasks: Task[]; nextCursor?: string }> {
    this.#store.tasks.mcp.deleteExpired(Date.now());
    const page = this.#store.tasks.mcp
      .list(cursor, PAGE)
      .filter((record) => isVisible(record, this.#owner ?? sessionId));
    const last = page.length === PAGE ? page.at(-1)?.id : undefined;
    return Promise.resolve({
      tasks: page.map(taskOf),
      ...(last === undefined ? {} : { nextCursor: last }),
    });
  }

  /**
   * Tasks a previous server left going whose run is not running any more (it ended, or its
   * supervisor died and the run is now interrupted) are failed, saying where the run stands.
   */
  settleAbandoned(): void {
    for (let page = this.#store.tasks.mcp.list(undefined, PAGE); page.length > 0;) {
      for (const record of page) {
        if (isTerminalStatus(statusOf(record))) continue;
        const run = record.runId === undefined ? undefined : this.#store.getRun(record.runId);
        if (run?.status === 'running') continue;
        // A task is written as its run starts; a young one without its run's record is starting.
        if (run === undefined && Date.now() - record.createdAt < STARTING_MS) continue;
        const why =
          run === undefined
            ? 'The server stopped before its run started.'
            : run.status === 'interrupted'
              ? `The server stopped while run ${run.id} was going; the run is interrupted, and \`arbor resume ${run.id}\` continues it.`
              : `The server stopped before it recorded run ${run.id}'s result (the run ended ${run.status}; \`arbor runs show ${run.id}\`).`;
        this.#store.tasks.mcp.put({
          ...record,
          status: 'failed',
          statusMessage: why,
          updatedAt: Date.now(),
        });
      }
      page = page.length < PAGE ? [] : this.#store.tasks.mcp.list(page.at(-1)?.id, PAGE);
    }
  }

  #visible(taskId: string, sessionId: string | undefined): McpTaskRecord | undefined {
    const record = this.#store.tasks.mcp.get(taskId);
    if (record === undefined || !isVisible(record, this.#owner ?? sessionId)) return undefined;
    if (record.ttlMs !== null && record.createdAt + record.ttlMs < Date.now()) return undefined;
    return record;
  }

  #found(taskId: string, sessionId: string | undefined): McpTaskRecord {
    const record = this.#visible(taskId, sessionId);
    if (record === undefined) throw new Error(`Task not found: ${taskId}`);
    return record;
  }
}

/**
 * A task is its scope's only: a principal's (over HTTP) or the local user's (stdio, no scope).
 * Neither sees the other's, though both may share a store.
 */
function isVisible(record: McpTaskRecord, scope: string | undefined): boolean {
  return record.session === scope;
}

function statusOf(record: McpTaskRecord): TaskStatus {
  const parsed = TaskStatusSchema.safeParse(record.status);
  return parsed.success ? parsed.data : 'failed';
}

function taskOf(record: McpTaskRecord): Task {
  return {
    taskId: record.id,
    status: statusOf(record),
    ttl: record.ttlMs,
    createdAt: new Date(record.createdAt).toISOString(),
    lastUpdatedAt: new Date(record.updatedAt).toISOString(),
    pollInterval: record.pollMs,
    ...(record.statusMessage === undefined ? {} : { statusMessage: record.statusMessage }),
  };
}
