import { z } from 'zod';
import { webhookUrlProblem } from '../authority/webhook-url.js';
import { MAX_FRAME_BYTES } from '../protocol/index.js';
import { DURATION_PATTERN } from './duration.js';

const EnvRef = z
  .string()
  .regex(
    /^env:[A-Za-z_][A-Za-z0-9_]*$/,
    'expected `env:NAME`; put the token in the environment, not in the file',
  );

const Count = z.number().int().positive();

const PrincipalSchema = z.strictObject({
  name: z.string().min(1).max(64).describe('Who this is, as tasks and logs name them.'),
  role: z
    .enum(['operator', 'user'])
    .describe('`operator` may do everything; `user` may create tasks and see and cancel its own.'),
  token: EnvRef.describe('The bearer token, read from the environment: `env:NAME`.'),
  max_runs: Count.optional().describe('Runs this principal may have going at once.'),
  tokens_per_day: Count.optional().describe(
    'Tokens the runs this principal started in the last 24 hours may have used before it may start another.',
  ),
});

const SkillSchema = z.strictObject({
  id: z.string().min(1),
  name: z.string().min(1),
  description: z.string().min(1),
  tags: z.array(z.string()).optional(),
  examples: z.array(z.string()).optional(),
});

const Duration = z
  .string()
  .regex(DURATION_PATTERN, 'expected a duration such as `30s`, `10m` or `1h`');

const TriggerSchema = z
  .strictObject({
    name: z
      .string()
      .regex(
        /^[A-Za-z0-9][A-Za-z0-9_-]{0,39}$/,
        'expected letters, digits, `_` and `-` (at most 40)',
      )
      .describe('How metrics and tasks name it.'),
    instruction: z.string().min(1).describe('What each run it starts is to do.'),
    every: Duration.optional().describe('Start a run this often (`10m`).'),
    cron: z
      .string()
      .min(1)
      .optional()
      .describe('Start a run on this cron schedule (`0 * * * *`, UTC).'),
    mcp_resource: z
      .strictObject({
        server: z.string().min(1).describe('An `[[mcp.server]]` by name.'),
        uri: z.string().min(1).describe('The resource to subscribe to.'),
        setup_tool: z
          .string()
          .min(1)
          .optional()
          .describe(
            "A tool of the server called (with no arguments) once its subscription is made, for servers that send updates only when asked (server-everything's `toggle-subscriber-updates`).",
          ),
      })
      .optional()
      .describe('Start a run when this MCP resource changes, with its new content.'),
    debounce: Duration.optional().describe(
      'With `mcp_resource`: changes closer together than this start one run (default `250ms`).',
    ),
  })
  .refine((t) => [t.every, t.cron, t.mcp_resource].filter((x) => x !== undefined).length === 1, {
    error: 'a trigger needs exactly one of `every`, `cron` or `mcp_resource`',
  });
export type TriggerEntry = z.infer<typeof TriggerSchema>;

/** `[serve]`: what `arbor serve` says of itself, who may use it, and how much. */
export const ServeTableSchema = z
  .strictObject({
    name: z.string().min(1).optional().describe("The agent card's name (default `arbor`)."),
    description: z.string().min(1).optional().describe("The agent card's description."),
    skill: z
      .array(SkillSchema)
      .optional()
      .describe('`[[serve.skill]]`: skills the agent card lists.'),
    principal: z
      .array(PrincipalSchema)
      .optional()
      .describe('`[[serve.principal]]`: who may call, with a bearer token each.'),
    max_runs: Count.optional().describe(
      'Runs going at once; past it `/readyz` says 503 and new tasks are refused (default 16).',
    ),
    max_body_bytes: z
      .number()
      .int()
      .min(1024)
      .max(MAX_FRAME_BYTES)
      .optional()
      .describe(
        "The largest request body taken, in bytes (default 4194304, 4 MiB); a larger one is refused with 413 before it is read whole. At most 16 MiB: a task's message travels to its agent in one protocol frame.",
      ),
    max_file_bytes: z
      .number()
      .int()
      .min(1)
      .max(MAX_FRAME_BYTES)
      .optional()
      .describe(
        "The largest file a message may carry inline, in bytes (default 1048576, 1 MiB); a larger one is refused naming this setting. Text files only; the request body's own limit (`max_body_bytes`) still holds, and base64 makes a file a third larger in it.",
      ),
    park_after: Duration.optional().describe(
      'Park a node that has only waited this long (on a person, a sub-agent, a peer): its process exits and it waits in the store, woken when what it waits for arrives (default `30s`; `0s` never parks).',
    ),
    public_url: z
      .url()
      .optional()
      .describe(
        'The base URL clients reach the server at (behind a proxy: `https://agents.example.com`), named by the agent card.',
      ),
    public_metrics: z.boolean().optional().describe('Serve `/metrics` without a token.'),
    allowed_hosts: z
      .array(z.string().min(1))
      .optional()
      .describe(
        '`Host` header values accepted besides the listen address (a name behind a proxy).',
      ),
    trigger: z
      .array(TriggerSchema)
      .optional()
      .describe('`[[serve.trigger]]`: runs started on a schedule or when an MCP resource changes.'),
    on_gate: z
      .strictObject({
        url: z.url().describe('Where to POST, as JSON, each question a task waits on.'),
        token: z
          .string()
          .regex(/^env:[A-Za-z_][A-Za-z0-9_]*$/, 'expected `env:NAME`')
          .optional()
          .describe('Sent as `Authorization: Bearer …`, read from the environment.'),
      })
      .optional()
      .describe('A webhook told whenever a task waits for a person.'),
    webhook_allow: z
      .array(z.string().min(1))
      .optional()
      .describe(
        'Hosts (as `net` entries: `127.0.0.1:9000`, `hooks.internal`) that push notifications and `on_gate` may reach although they resolve to loopback or private addresses.',
      ),
    allowed_origins: z
      .array(z.url())
      .optional()
      .describe('Browser origins that may call (`Origin` header); none by default.'),
  })
  // The rules delivery applies, checked as the file is read: a URL no delivery could use is a
  // mistake in the file, not something to find out when a task first waits for a person.
  .superRefine((table, context) => {
    if (table.on_gate === undefined) return;
    const problem = webhookUrlProblem(table.on_gate.url, table.webhook_allow ?? []);
    if (problem !== undefined)
      context.addIssue({ code: 'custom', path: ['on_gate', 'url'], message: problem });
  })
  .describe('`arbor serve`: the agent card, principals and limits.');
export type ServeTable = z.infer<typeof ServeTableSchema>;
export type PrincipalEntry = z.infer<typeof PrincipalSchema>;
