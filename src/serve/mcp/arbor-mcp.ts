import { McpServer } from '@modelcontextprotocol/sdk/server/mcp.js';
import type { Transport } from '@modelcontextprotocol/sdk/shared/transport.js';
import type { Arbor } from '../../api/arbor.js';
import type { RunHandle } from '../../api/run-handle.js';
import type { SqliteStore } from '../../store/index.js';
import type { McpCaps } from './mcp-caps.js';
import type { CallerQuestion } from './mcp-run.js';
import { ArborTaskStore } from './mcp-task-store.js';
import { registerArborTools } from './mcp-tools.js';

/** How long a caller has to answer a question put to it (a person may be behind it). */
const ASK_TIMEOUT_MS = 60 * 60 * 1000;

export interface ArborMcpOptions {
  arbor: Arbor;
  store: SqliteStore;
  caps: McpCaps;
  cwd: string;
  transport: 'stdio' | 'http';
  version: string;
  /** Over HTTP: the principal whose tasks these are (see `ArborTaskStore`), and its role. */
  owner?: { name: string; role: 'operator' | 'user' };
  /** Throws, saying why, when the caller may not start a run now; absent: always may. */
  admit?: () => void;
}

/**
 * arbor as an MCP server: its tools on one `Arbor`, its tasks in the run store, and the runs of
 * the tasks still going, so a cancel (or the caller going away) stops their trees.
 */
export class ArborMcp {
  readonly server: McpServer;
  readonly #live = new Map<string, RunHandle>();
  readonly #tasks: ArborTaskStore;

  constructor(options: ArborMcpOptions) {
    this.#tasks = new ArborTaskStore(
      options.store,
      (taskId, reason) => this.#cancelRun(taskId, reason),
      options.owner?.name,
    );
    // Tasks a dead server left are settled (a live one's runs are running, and left alone);
    // `arbor serve` does it once, not per session.
    if (options.transport === 'stdio') this.#tasks.settleAbandoned();
    this.server = new McpServer(
      { name: 'arbor', version: options.version },
      {
        capabilities: {
          tools: {},
          tasks: { list: {}, cancel: {}, requests: { tools: { call: {} } } },
        },
        taskStore: this.#tasks,
      },
    );
    registerArborTools(this.server, {
      arbor: options.arbor,
      caps: options.caps,
      cwd: options.cwd,
      transport: options.transport,
      canReadRuns: options.owner === undefined || options.owner.role === 'operator',
      admit: () => options.admit?.(),
      track: (taskId, handle) => {
        this.#live.set(taskId, handle);
        const done = (): void => void this.#live.delete(taskId);
        handle.result.then(done, done);
      },
      asker: () =>
        this.server.server.getClientCapabilities()?.elicitation === undefined
          ? undefined
          : (question) => this.#ask(question),
    });
  }

  connect(transport: Transport): Promise<void> {
    return this.server.connect(transport);
  }

  /** Runs of tasks still going. */
  get running(): number {
    return this.#live.size;
  }

  /** Cancels every task still going (recorded as cancelled); resolves once their trees stopped. */
  async cancelAll(reason: string): Promise<void> {
    await Promise.all(
      [...this.#live.keys()].map((taskId) =>
        this.#tasks.updateTaskStatus(taskId, 'cancelled', reason).catch(() => undefined),
      ),
    );
  }

  async #cancelRun(taskId: string, reason: string): Promise<void> {
    await this.#live.get(taskId)?.cancel(reason);
  }

  /** A question put to the caller as a form with one field, `answer` (its choices, if any). */
  async #ask(question: CallerQuestion): Promise<string | undefined> {
    const result = await this.server.server.elicitInput(
      {
        mode: 'form',
        message: question.question,
        requestedSchema: {
          type: 'object',
          properties: {
            answer:
              question.choices === undefined
                ? { type: 'string', title: 'Answer' }
                : { type: 'string', title: 'Answer', enum: question.choices },
          },
          required: ['answer'],
        },
      },
      { timeout: ASK_TIMEOUT_MS },
    );
    const answer = result.action === 'accept' ? result.content?.answer : undefined;
    return typeof answer === 'string' ? answer : undefined;
  }
}
