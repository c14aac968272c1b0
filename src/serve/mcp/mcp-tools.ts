import path from 'node:path';
import type { McpServer } from '@modelcontextprotocol/sdk/server/mcp.js';
import type { CreateTaskRequestHandlerExtra } from '@modelcontextprotocol/sdk/experimental/tasks/interfaces.js';
import type { RequestTaskStore } from '@modelcontextprotocol/sdk/shared/protocol.js';
import type { CallToolResult } from '@modelcontextprotocol/sdk/types.js';
import { z } from 'zod';
import type { Arbor } from '../../api/arbor.js';
import type { RunHandle } from '../../api/run-handle.js';
import { parsePlanToml } from '../../plan/index.js';
import { ArborError, type Caveats } from '../../protocol/index.js';
import { BudgetInputSchema, capRequest, GrantInputSchema, type McpCaps } from './mcp-caps.js';
import { followRun, type McpRunPorts } from './mcp-run.js';
import { runsList, runsShow } from './mcp-runs-tools.js';

/** What the tools run on. */
export interface McpToolHost {
  arbor: Arbor;
  caps: McpCaps;
  cwd: string;
  /** `stdio` may name plan files; a remote caller may not read the server's files. */
  transport: 'stdio' | 'http';
  /** Whether the caller may read the store's runs (`runs.list`, `runs.show`): not a `user` principal. */
  canReadRuns: boolean;
  /** A run started for a task, until it ends. */
  track(taskId: string, handle: RunHandle): void;
  /** The caller's elicitation, when its client declared the capability; else undefined. */
  asker(): McpRunPorts['ask'];
  /** Throws, saying why, when the caller may not start a run now (`arbor serve`'s limits). */
  admit(): void;
}

const RESULT_SHAPE = {
  run_id: z.string(),
  status: z.string(),
  answer: z.string(),
  output: z.unknown().optional(),
  reason: z.string().optional(),
  usage: z.record(z.string(), z.number()),
  held: z.array(z.string()),
};

const RUN_INPUT = {
  instruction: z.string().min(1).describe('What the agent is to do.'),
  grant: GrantInputSchema.optional(),
  budget: BudgetInputSchema.optional(),
  deadline_seconds: z
    .number()
    .positive()
    .optional()
    .describe("Wall-clock limit of the run, in seconds; at most the server's."),
};

const PLAN_INPUT = {
  plan: z.string().min(1).optional().describe('The plan, as TOML (`[[subtask]]` tables).'),
  path: z
    .string()
    .min(1)
    .optional()
    .describe("A plan file, relative to the server's directory (stdio only)."),
  deadline_seconds: RUN_INPUT.deadline_seconds,
};

/** `arbor.run`, `arbor.plan`, `runs.list` and `runs.show`. */
export function registerArborTools(server: McpServer, host: McpToolHost): void {
  const tasks = server.experimental.tasks;
  tasks.registerToolTask(
    'arbor.run',
    {
      title: 'Delegate to arbor',
      description:
        "Runs a bounded arbor agent (and any sub-agents it spawns) on an instruction and returns its answer, structured output and usage. By default it may read the server's working directory and nothing else; a grant, budget or deadline asked for is held to the server's caps.",
      inputSchema: RUN_INPUT,
      outputSchema: RESULT_SHAPE,
      execution: { taskSupport: 'optional' },
    },
    {
      createTask: (args, extra) =>
        startCapped(host, args, extra, (options) => host.arbor.run(args.instruction, options)),
      ...TASK_READS,
    },
  );
  tasks.registerToolTask(
    'arbor.plan',
    {
      title: 'Run an arbor plan',
      description:
        "Runs a plan (a DAG of subtasks, TOML `[[subtask]]` tables) under the server's grant and caps and returns the outcome. Give the plan as TOML text, or (over stdio) a plan file's path.",
      inputSchema: PLAN_INPUT,
      outputSchema: RESULT_SHAPE,
      execution: { taskSupport: 'optional' },
    },
    {
      createTask: (args, extra) =>
        startCapped(host, args, extra, (options) =>
          host.arbor.runPlan(planOf(host, args), options),
        ),
      ...TASK_READS,
    },
  );
  server.registerTool(
    'runs.list',
    {
      title: 'List arbor runs',
      description: 'Past and present runs in the store, newest first.',
      inputSchema: {
        status: z
          .string()
          .optional()
          .describe('Only runs in this status (`completed`, `failed`, …).'),
        limit: z
          .number()
          .int()
          .positive()
          .max(200)
          .optional()
          .describe('At most this many (default 20).'),
      },
      annotations: { readOnlyHint: true },
    },
    (args) => (host.canReadRuns ? runsList(host.arbor, args) : operatorsOnly()),
  );
  server.registerTool(
    'runs.show',
    {
      title: 'Show an arbor run',
      description:
        "One run: its status, instruction, nodes with their statuses and usage, and the root's answer.",
      inputSchema: { run_id: z.string().min(1) },
      annotations: { readOnlyHint: true },
    },
    (args) => (host.canReadRuns ? runsShow(host.arbor, args.run_id) : operatorsOnly()),
  );
}

/** The store's runs are everyone's who use it: a `user` principal sees its own tasks only. */
function operatorsOnly(): CallToolResult {
  return {
    content: [
      {
        type: 'text',
        text: "The store's runs are for operators to read; a task's own result comes with `tasks/result`.",
      },
    ],
    isError: true,
  };
}

/** The task of a run just started: created (the run's id with it), tracked, and followed. */
async function startTask(
  host: McpToolHost,
  handle: RunHandle,
  extra: CreateTaskRequestHandlerExtra,
  held: readonly string[],
) {
  let task;
  try {
    task = await extra.taskStore.createTask({
      ttl: extra.taskRequestedTtl ?? null,
      context: { runId: handle.runId },
    });
  } catch (error) {
    await handle.cancel('its task could not be created');
    throw error;
  }
  host.track(task.taskId, handle);
  // A caller that gives up on a blocking call (or goes away) cancels its run; a task's call has
  // answered by now, and its signal never aborts.
  extra.signal.addEventListener(
    'abort',
    () =>
      void extra.taskStore
        .updateTaskStatus(task.taskId, 'cancelled', 'The caller cancelled the call.')
        .catch(() => undefined),
    { once: true },
  );
  const token = extra._meta?.progressToken;
  const ask = host.asker();
  const ports: McpRunPorts = {
    taskStore: extra.taskStore,
    held,
    ...(ask === undefined ? {} : { ask }),
    ...(token === undefined
      ? {}
      : {
          progress: (progress, message, meta) =>
            extra.sendNotification({
              method: 'notifications/progress',
              params: { progressToken: token, progress, message, _meta: meta },
            }),
        }),
  };
  void followRun(handle, task.taskId, ports);
  return { task };
}

/** How a task's status and result are read: from the task store, for both run tools. */
const TASK_READS = {
  getTask: (_args: unknown, extra: { taskId: string; taskStore: RequestTaskStore }) =>
    extra.taskStore.getTask(extra.taskId),
  getTaskResult: async (_args: unknown, extra: { taskId: string; taskStore: RequestTaskStore }) =>
    (await extra.taskStore.getTaskResult(extra.taskId)) as CallToolResult,
};

/**
 * Starts a run tool's task once the caller is admitted, with the caps met: the caps' grant and
 * ceilings are passed to the run (under `arbor serve` the instance's own grant is the server's,
 * wider than what an MCP caller may have), and where they held the request is said in the result.
 */
function startCapped(
  host: McpToolHost,
  args: Parameters<typeof capRequest>[1],
  extra: CreateTaskRequestHandlerExtra,
  start: (options: {
    grant: {
      fsRead: Caveats['fs_read'];
      fsWrite: Caveats['fs_write'];
      exec: Caveats['exec'];
      net: Caveats['net'];
    };
    budget: ReturnType<typeof capRequest>['budget'];
    deadline?: number;
  }) => RunHandle,
) {
  host.admit();
  const capped = capRequest(host.caps, args, host.cwd);
  const { fs_read: fsRead, fs_write: fsWrite, exec, net } = capped.grant;
  const handle = start({
    grant: { fsRead, fsWrite, exec, net },
    budget: capped.budget,
    ...(capped.deadlineMs === undefined ? {} : { deadline: capped.deadlineMs }),
  });
  return startTask(host, handle, extra, capped.held);
}

function planOf(host: McpToolHost, args: { plan?: string | undefined; path?: string | undefined }) {
  if ((args.plan === undefined) === (args.path === undefined))
    throw new ArborError(
      'usage',
      '`arbor.plan` takes one of `plan` (TOML text) or `path` (a plan file).',
    );
  if (args.plan !== undefined) return parsePlanToml(args.plan, { source: 'arbor.plan' });
  if (host.transport !== 'stdio' || !host.caps.planFiles)
    throw new ArborError(
      'usage',
      `\`arbor.plan\` reads plan files only over stdio${host.caps.planFiles ? '' : ', and `[mcp.serve] plan_files` is false'}: send the plan as TOML text in \`plan\`.`,
    );
  return path.resolve(host.cwd, args.path ?? '');
}
