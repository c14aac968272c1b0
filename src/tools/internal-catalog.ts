import { z } from 'zod';
import { CaveatsSchema, CHILD_BOUNDS, SeedMessageSchema, type ToolDef } from '../protocol/index.js';

/**
 * Tools the supervisor serves. A child offers them to its model like any other tool, but running
 * one sends a `tool_request` up the control channel: the supervisor owns the state these tools
 * touch (the tree, memory, gates), and letting children change it directly would let siblings
 * race each other. Each tool's arguments are defined once, as a zod schema; the JSON Schema the
 * model sees is generated from it.
 */

/**
 * The argument of `subagent.run` through which a child runtime hands the supervisor its own
 * transcript for a `fork`. The runtime sets it (and removes one the model wrote), so it is data
 * the caller already holds, never a grant.
 */
export const HISTORY_ARG = '_history';

/**
 * The request a child runtime (never its model: no tool of this name is offered) sends the
 * supervisor when the runtime trifecta holds an egress call: ask a person whether it may go.
 */
export const EGRESS_APPROVAL = 'arbor.approve_egress';

export const EgressApprovalArgs = z.strictObject({
  tool: z.string().min(1),
  args: z.record(z.string(), z.unknown()),
  reason: z.string().min(1),
});

/** What a `subagent.run` may ask for: a share of what its caller has left, never more. */
const BudgetRequestSchema = z.strictObject({
  tokens: z
    .number()
    .int()
    .positive()
    .optional()
    .describe('Tokens the sub-agent and its own sub-agents may use in all.'),
  usd: z.number().positive().optional().describe('US dollars they may spend in all.'),
  steps: z
    .number()
    .int()
    .positive()
    .optional()
    .describe('Model calls the sub-agent itself may make.'),
  wall_ms: z
    .number()
    .int()
    .positive()
    .optional()
    .describe('Wall-clock time the sub-agent may run, in milliseconds.'),
});
export type BudgetRequest = z.infer<typeof BudgetRequestSchema>;

const Handle = z.string().min(1).describe('The handle `subagent.run` returned, such as `n3`.');

export const SubagentRunArgs = z.strictObject({
  instruction: z
    .string()
    .describe('The task for the sub-agent: self-contained, it sees nothing else of yours.'),
  output_contract: z
    .string()
    .optional()
    .describe('What the result must look like and what is out of scope.'),
  output_schema: z
    .record(z.string(), z.unknown())
    .optional()
    .describe('JSON Schema the result must satisfy; the result comes back parsed.'),
  context: z
    .array(SeedMessageSchema.pick({ role: true, content: true }))
    .optional()
    .describe(
      'Messages to share with the sub-agent, such as findings it needs. It never sees your conversation otherwise.',
    ),
  servers: z
    .array(z.string())
    .optional()
    .describe('MCP servers to grant, by name (a subset of yours); all of yours when absent.'),
  tools: z
    .array(z.string())
    .optional()
    .describe('Tool names or patterns (`fs.*`) to allow; your own set when absent; [] for none.'),
  caveats: CaveatsSchema.partial()
    .optional()
    .describe(
      'Authority to grant: paths it may read or write, commands, hosts; never more than yours.',
    ),
  provider: z
    .enum(['process', 'spawn', 'fork', 'a2a', 'queue'])
    .optional()
    .describe(
      '`process` (default, isolated), `spawn` (in-process), `fork` (in-process, starts from your conversation so far), `a2a` (a remote A2A agent: name it in `peer`), `queue` (a process on a fleet worker, when the run has a fleet).',
    ),
  peer: z
    .string()
    .min(1)
    .optional()
    .describe(
      'With `provider: "a2a"`: the remote agent to send the task to, by name (one of yours).',
    ),
  peers: z
    .array(z.string())
    .optional()
    .describe('A2A peers to grant, by name (a subset of yours); all of yours when absent.'),
  mode: z
    .enum(['sync', 'async', 'detached', 'warm'])
    .optional()
    .describe(
      '`sync` (default) waits for the result; `async` returns a handle to await; `detached` runs on its own; `warm` keeps it for `subagent.send`.',
    ),
  persona: z
    .string()
    .optional()
    .describe('How the sub-agent should work (a role or style), added to its system prompt.'),
  budget: BudgetRequestSchema.optional().describe(
    'A share of your budget for it: by default, all you have left.',
  ),
});
export type SubagentRunArgs = z.infer<typeof SubagentRunArgs>;

export const SubagentSendArgs = z.strictObject({ handle: Handle, message: z.string().min(1) });
export const SubagentKillArgs = z.strictObject({ handle: Handle, reason: z.string().optional() });
export const SubagentStatusArgs = z.strictObject({ handle: Handle });
export const SubagentAwaitArgs = z.strictObject({
  handle: Handle,
  timeout_ms: z
    .number()
    .int()
    .min(0)
    .max(3_600_000)
    .optional()
    .describe('Give up waiting after this many milliseconds (the sub-agent keeps running).'),
});
const SubagentListArgs = z.strictObject({});
/** Durable memory's bounds: every entry is shared by every run on the store, for as long as it lives. */
export const MEMORY_BOUNDS = {
  /** Characters of a key (or a prefix to list). */
  keyChars: 512,
  /** Bytes of a value, as UTF-8 JSON text: 64 KiB. */
  valueBytes: 64 * 1024,
  /** Entries the store may hold (unexpired); past it, only existing keys may be set. */
  entries: 10_000,
} as const;

const MemoryKey = z.string().min(1).max(MEMORY_BOUNDS.keyChars);

export const MemoryGetArgs = z.strictObject({ key: MemoryKey });
export const MemorySetArgs = z.strictObject({
  key: MemoryKey,
  value: z
    .unknown()
    .superRefine((value, context) => {
      const bytes = Buffer.byteLength(JSON.stringify(value ?? null), 'utf8');
      if (bytes > MEMORY_BOUNDS.valueBytes)
        context.addIssue({
          code: 'custom',
          message: `expected a value of at most ${MEMORY_BOUNDS.valueBytes} bytes as JSON (64 KiB), got ${bytes} bytes; store a summary, or split it over several keys`,
        });
    })
    .describe('Any JSON value, at most 64 KiB as JSON text.'),
  ttl_ms: z
    .number()
    .int()
    .positive()
    .optional()
    .describe('Forget the entry after this many milliseconds.'),
});
export const MemoryListArgs = z.strictObject({
  prefix: z.string().max(MEMORY_BOUNDS.keyChars).optional(),
});
export const MemoryDeleteArgs = z.strictObject({ key: MemoryKey });
export const SleepArgs = z.strictObject({
  ms: z.number().int().min(0).max(600_000).describe('How long to wait, in milliseconds.'),
});
export const AskHumanArgs = z.strictObject({
  question: z
    .string()
    .min(1)
    .max(CHILD_BOUNDS.questionChars)
    .describe('What you need a person to decide or tell you.'),
  choices: z
    .array(z.string().max(CHILD_BOUNDS.choiceChars))
    .max(CHILD_BOUNDS.choices)
    .optional()
    .describe('Answers to pick from, if the question has a fixed set.'),
});

interface InternalTool {
  name: string;
  description: string;
  args: z.ZodType;
}

const CATALOG: readonly InternalTool[] = [
  {
    name: 'subagent.run',
    description:
      'Delegate a task to a sub-agent with its own narrowed context, tools and authority.',
    args: SubagentRunArgs,
  },
  {
    name: 'subagent.send',
    description: 'Send the next message to a warm sub-agent.',
    args: SubagentSendArgs,
  },
  {
    name: 'subagent.kill',
    description: 'Stop a sub-agent and everything it started.',
    args: SubagentKillArgs,
  },
  {
    name: 'subagent.status',
    description: 'The status, usage and latest result of a sub-agent.',
    args: SubagentStatusArgs,
  },
  {
    name: 'subagent.await',
    description: 'Wait for a sub-agent started with mode async (or the next answer of a warm one).',
    args: SubagentAwaitArgs,
  },
  {
    name: 'subagent.list',
    description: 'Your sub-agents and their status.',
    args: SubagentListArgs,
  },
  { name: 'memory.get', description: 'Read a value from durable memory.', args: MemoryGetArgs },
  {
    name: 'memory.set',
    description: 'Store a value in durable memory, optionally for a limited time.',
    args: MemorySetArgs,
  },
  {
    name: 'memory.list',
    description: 'List memory keys, optionally those starting with a prefix.',
    args: MemoryListArgs,
  },
  {
    name: 'memory.delete',
    description: 'Remove a value from durable memory.',
    args: MemoryDeleteArgs,
  },
  {
    name: 'sleep',
    description: 'Wait for a number of milliseconds (at most 10 minutes), then continue.',
    args: SleepArgs,
  },
  {
    name: 'ask_human',
    description: 'Ask a person a question and wait for the answer.',
    args: AskHumanArgs,
  },
];

let definitions: readonly ToolDef[] | undefined;

/** Every internal tool's definition (built once, on first use). */
export function internalToolDefs(): readonly ToolDef[] {
  definitions ??= CATALOG.map((tool) => ({
    name: tool.name,
    description: tool.description,
    input_schema: z.toJSONSchema(tool.args, { io: 'input', unrepresentable: 'any' }),
  }));
  return definitions;
}

/** The zod schema of an internal tool's arguments. */
export function internalToolArgs(name: string): z.ZodType | undefined {
  return CATALOG.find((tool) => tool.name === name)?.args;
}
