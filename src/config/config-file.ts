import { readFileSync } from 'node:fs';
import { parse as parseToml, TomlError } from 'smol-toml';
import { z } from 'zod';
import { PolicyRulesSchema, ToolPatternSchema } from '../authority/policy/index.js';
import {
  ArborError,
  DEFAULT_LIMITS,
  McpServerSpecSchema,
  DialectSchema,
  EndpointSchema,
  formatIssues,
  HeadersSchema,
  HttpUrlSchema,
  ModelPriceSchema,
  SamplingSchema,
  ScopeSchema,
  ServerNameSchema,
  CountBoundSchema,
  RuntimeTrifectaModeSchema,
  SwapPolicySchema,
} from '../protocol/index.js';
import { NetTableSchema } from './net-credential-table.js';
import { BudgetTableSchema } from './budget-table.js';
import { QueueTableSchema } from './queue-table.js';
import { ServeTableSchema } from './serve-table.js';
import { McpServeTableSchema } from './mcp-serve-table.js';
import { DURATION_PATTERN, durationMs, formatDuration, MAX_DURATION_MS } from './duration.js';

// Descriptions are `.describe()`d rather than written as doc comments: `arbor config schema`
// carries them into the JSON Schema, so editors show them when hovering a key.

const Duration = z
  .string()
  .regex(DURATION_PATTERN, 'expected a duration such as `500ms`, `30s`, `5m`, `1h` or `7d`')
  .refine((text) => (durationMs(text) ?? 0) <= MAX_DURATION_MS, {
    error: `expected at most ${formatDuration(MAX_DURATION_MS)}`,
  })
  .describe('A duration such as `500ms`, `30s`, `5m`, `1h` or `7d` (at most `24d`).');

/** The most process children a pool may keep waiting (`[agent] pool`, `--pool`). */
export const MAX_POOL = 64;

const EndpointTable = z.strictObject({
  url: HttpUrlSchema.describe('Base URL, such as `https://api.openai.com/v1`.'),
  dialect: DialectSchema.optional().describe('Wire dialect of this endpoint.'),
  model: z.string().min(1).optional().describe('Model name here, when it differs.'),
  credential: z
    .string()
    .regex(
      /^env:[A-Za-z_][A-Za-z0-9_]*$/,
      'expected `env:NAME`; put the key in the environment, not in the file',
    )
    .optional()
    .describe('Where the credential comes from: `env:NAME`. Literal keys are refused in files.'),
  headers: HeadersSchema.optional().describe('Extra request headers.'),
  sampling: SamplingSchema.strict()
    .optional()
    .describe("Sampling options for this endpoint only, over `intelligence.sampling`'s."),
  max_tokens_field: EndpointSchema.shape.max_tokens_field.describe(
    'OpenAI chat completions: the field of the output cap (default `max_completion_tokens` for api.openai.com and Azure OpenAI, `max_tokens` elsewhere).',
  ),
  prompt_cache: z
    .strictObject({
      enabled: z.boolean().optional().describe('Whether to mark cache breakpoints (default on).'),
      ttl: z.enum(['5m', '1h']).optional().describe('Cache entry lifetime: `5m` or `1h`.'),
    })
    .optional()
    .describe('Anthropic prompt caching: breakpoints on tools + system and the newest turn.'),
});

const IntelligenceTable = z
  .strictObject({
    model: z.string().min(1).optional().describe('The model name.'),
    dialect: DialectSchema.optional().describe('Wire dialect (`openai` is chat completions).'),
    endpoints: z
      .array(HttpUrlSchema)
      .optional()
      .describe('Endpoint URLs in failover order; short form of `[[intelligence.endpoint]]`.'),
    endpoint: z
      .array(EndpointTable)
      .optional()
      .describe('`[[intelligence.endpoint]]` tables, in failover order.'),
    timeout: Duration.optional().describe('Timeout of one model call.'),
    retries: z
      .number()
      .int()
      .min(0)
      .optional()
      .describe('Retries on 429 and 5xx, on the same endpoint, before failing over.'),
    swap_policy: SwapPolicySchema.optional().describe('How a SIGHUP reload swaps the model.'),
    sampling: SamplingSchema.strict().optional().describe('Sampling options sent to the model.'),
    prices: z
      .record(z.string(), ModelPriceSchema)
      .optional()
      .describe('USD per million tokens by model name, over the default table (budget.md).'),
    breaker: z
      .strictObject({
        threshold: z.number().int().positive().optional().describe('Failures that open it.'),
        cooldown: Duration.optional().describe('First cooldown; it doubles on each re-open.'),
        cooldown_max: Duration.optional().describe('Ceiling of the doubling cooldown.'),
      })
      .optional()
      .describe('Per-endpoint circuit breaker.'),
  })
  // A refinement, not a JSON Schema rule: `arbor config check` reports it, editors do not.
  .refine((table) => table.endpoints === undefined || table.endpoint === undefined, {
    error: 'set either `intelligence.endpoints` or `[[intelligence.endpoint]]`, not both',
    path: ['endpoint'],
  });

/** The `--config` file: TOML, strict (an unknown key is an error naming it). */
export const ConfigFileSchema = z
  .strictObject({
    intelligence: IntelligenceTable.optional().describe('The model and how to reach it.'),
    limits: z
      .strictObject({
        max_steps: z
          .number()
          .int()
          .positive()
          .optional()
          .describe(`Model calls allowed (default ${DEFAULT_LIMITS.maxSteps}).`),
        max_tokens: z
          .number()
          .int()
          .positive()
          .optional()
          .describe("The tree's token ceiling: input + output of every node."),
        deadline: Duration.optional().describe('Wall-clock limit of the run.'),
        max_depth: z
          .number()
          .int()
          .min(0)
          .optional()
          .describe(`Levels of delegation below the root (default ${DEFAULT_LIMITS.maxDepth}).`),
        max_breadth: z
          .number()
          .int()
          .positive()
          .optional()
          .describe(`Running children of one caller (default ${DEFAULT_LIMITS.maxBreadth}).`),
        max_total: z
          .number()
          .int()
          .positive()
          .optional()
          .describe(`Nodes the run may create (default ${DEFAULT_LIMITS.maxTotal}).`),
        max_queued: z
          .number()
          .int()
          .min(0)
          .optional()
          .describe(
            `Spawns that may wait at once for the spawn rate or a caller's breadth (default ${DEFAULT_LIMITS.maxQueued}); past it a spawn is refused.`,
          ),
        spawn_rate: z
          .string()
          .regex(/^\d+\/\d+(ms|s|m|h|d)$/, 'expected `COUNT/DURATION`, such as `8/2s`')
          .optional()
          .describe('Spawns allowed per period across the run, written `8/2s`.'),
      })
      .optional()
      .describe('Step, token, time and delegation caps.'),
    budget: BudgetTableSchema,
    mcp: z
      .strictObject({
        server: z
          .array(z.strictObject(McpServerSpecSchema.shape))
          .optional()
          .describe('`[[mcp.server]]` tables: stdio (`command`) or HTTP (`url`) servers.'),
        serve: McpServeTableSchema.optional(),
      })
      .optional()
      .describe(
        'MCP servers the root holds (children get subsets), and what `arbor mcp` lets its callers have.',
      ),
    security: z
      .strictObject({
        allow_trifecta: z
          .boolean()
          .optional()
          .describe('Let a node hold untrusted input, sensitive data and egress together.'),
        policy: PolicyRulesSchema.optional().describe(
          'Ordered `[[security.policy]]` rules; the first that matches a gated call decides.',
        ),
        sandbox: z
          .enum(['auto', 'required', 'off'])
          .optional()
          .describe('`auto` (bubblewrap where it works), `required` (or refuse to start), `off`.'),
        network: z
          .enum(['proxy', 'host'])
          .optional()
          .describe(
            "Where sandboxed commands' network goes: `proxy` (default: through arbor's egress proxy, held to each agent's `net`) or `host` (the opt-out: commands of agents holding `net = \"all\"` share this machine's network, loopback and private ranges included). `--sandbox-network` wins.",
          ),
        egress_max_connections: z
          .number()
          .int()
          .min(1)
          .optional()
          .describe("Most connections one agent's commands hold open at once (default 64)."),
        egress_max_bytes: z
          .number()
          .int()
          .min(1)
          .optional()
          .describe(
            "Most bytes one agent's commands move through the proxy, both ways (default 4 GiB).",
          ),
        bwrap: z
          .string()
          .min(1)
          .optional()
          .describe(
            'Absolute path of bubblewrap when it is not in /usr/bin, /bin, /usr/local/bin or /usr/sbin (checked: outside every grant, owned by root or you, no directory on the way writable by others). `ARBOR_BWRAP` wins.',
          ),
        git: z
          .string()
          .min(1)
          .optional()
          .describe(
            'Absolute path of git for `--worktrees`, when it is not in the system directories (checked as `bwrap` is). `ARBOR_GIT` wins.',
          ),
        runtime_trifecta: RuntimeTrifectaModeSchema.optional().describe(
          'What an egress call of an exposed and sensitive node gets.',
        ),
        sensitive_paths: z
          .array(z.string().min(1))
          .optional()
          .describe('Glob patterns of sensitive files on top of the built-in list.'),
        risk_ask_at: z
          .number()
          .gt(0)
          .max(1)
          .optional()
          .describe('The risk score (0–1) at which egress is held as for the trifecta; 1: never.'),
        untrusted_tools: z
          .array(ToolPatternSchema)
          .optional()
          .describe('Tool patterns (`github.*`) whose results count as untrusted content.'),
      })
      .optional()
      .describe('Sandbox, trifecta checks and tool-call policy.'),
    agent: z
      .strictObject({
        ask_human_fallback: z
          .enum(['fail', 'wait'])
          .optional()
          .describe('Without a terminal: `fail` questions at once, or `wait` for `arbor gate`.'),
        pool: z
          .number()
          .int()
          .min(0)
          .max(MAX_POOL)
          .optional()
          .describe(
            'Process children kept loaded and waiting, at most: the pool follows demand up to this (0: none).',
          ),
      })
      .optional(),
    grant: z
      .strictObject({
        fs_read: ScopeSchema.optional().describe('Paths agents may read.'),
        fs_write: ScopeSchema.optional().describe('Paths agents may write.'),
        exec: ScopeSchema.optional().describe('Commands agents may run (exact match).'),
        net: ScopeSchema.optional().describe('Hosts agents may reach.'),
        max_calls: CountBoundSchema.optional().describe('Tool calls allowed.'),
      })
      .optional()
      .describe("The run's grant: what the root, and so every descendant, may touch."),
    net: NetTableSchema.optional(),
    store: z
      .strictObject({ path: z.string().min(1).optional().describe('The SQLite run store.') })
      .optional(),
    serve: ServeTableSchema.optional(),
    queue: QueueTableSchema.optional().describe(
      'The fleet: nodes run on `arbor worker`s through BullMQ on Redis (`--provider queue`).',
    ),
    observability: z
      .strictObject({
        otlp_endpoint: HttpUrlSchema.optional().describe(
          'Where traces go (OTLP over HTTP; `/v1/traces` is added). `OTEL_EXPORTER_OTLP_ENDPOINT` wins over it.',
        ),
        protocol: z
          .enum(['http/json', 'http/protobuf'])
          .optional()
          .describe(
            'OTLP encoding (default `http/json`); `OTEL_EXPORTER_OTLP_PROTOCOL` wins over it.',
          ),
        service_name: z
          .string()
          .min(1)
          .optional()
          .describe('`service.name` of the spans (default `arbor`).'),
        capture_content: z
          .boolean()
          .optional()
          .describe('Put model messages and tool arguments in spans (off by default).'),
        trace_url: z
          .string()
          .regex(/^https?:\/\/\S*\{trace_id\}\S*$/, {
            error: 'expected an http(s) URL holding `{trace_id}`',
          })
          .optional()
          .describe(
            'Where your tracing backend shows a trace, `{trace_id}` standing for its id (such as `http://localhost:16686/trace/{trace_id}` for Jaeger): the dashboard links each traced run there.',
          ),
      })
      .optional()
      .describe('OpenTelemetry traces: off unless an endpoint is set here or in the environment.'),
    a2a: z
      .strictObject({
        peer: z
          .array(
            z.strictObject({
              name: ServerNameSchema.describe(
                'How agents name it (`subagent.run { provider: "a2a", peer }`).',
              ),
              url: HttpUrlSchema.describe(
                "The peer's base URL; its agent card is read from `/.well-known/agent-card.json`.",
              ),
              token: z
                .string()
                .regex(
                  /^env:[A-Za-z_][A-Za-z0-9_]*$/,
                  'expected `env:NAME`; put the token in the environment, not in the file',
                )
                .optional()
                .describe('A bearer token for the peer, read from the environment: `env:NAME`.'),
              headers: HeadersSchema.optional().describe(
                'Extra request headers (`{{env:NAME}}` references resolve).',
              ),
            }),
          )
          .optional()
          .describe('`[[a2a.peer]]`: remote A2A agents the root holds; children get subsets.'),
      })
      .optional()
      .describe('Remote agents to delegate to over A2A.'),
  })
  .meta({
    title: 'arbor config file',
    description: 'The TOML file of `arbor run --config` and `arbor doctor --config`.',
  });
export type ConfigFile = z.infer<typeof ConfigFileSchema>;

/**
 * A config file's text without a byte-order mark (some editors write one, and no editor counts it
 * as a column). A file that cannot be read is a `config` error naming it.
 */
export function readConfigText(path: string): string {
  try {
    return readFileSync(path, 'utf8').replace(/^\uFEFF/, '');
  } catch (error) {
    throw new ArborError(
      'config',
      `Cannot read the config file ${path}: ${(error as NodeJS.ErrnoException).code ?? String(error)}.`,
      { cause: error },
    );
  }
}

/**
 * Parses config TOML. A syntax error is a `config` error "FILE:LINE:COLUMN: invalid TOML: why",
 * one line, so editors and terminals can jump to it.
 */
export function parseConfigToml(text: string, path: string): unknown {
  try {
    // `__proto__` and `constructor` keys are refused outright, as in plan files.
    return parseToml(text, { unsafeKeyBehaviour: 'throw' });
  } catch (error) {
    if (!(error instanceof TomlError)) throw error;
    const reason = (error.message.split('\n')[0] ?? '').replace(/^Invalid TOML document: /, '');
    throw new ArborError(
      'config',
      `${path}:${error.line}:${error.column}: invalid TOML: ${reason}`,
      {
        details: { path, line: error.line, column: error.column },
        cause: error,
      },
    );
  }
}

/** Reads and validates a config file; every problem is a `config` error naming the file and key. */
export function loadConfigFile(path: string): ConfigFile {
  const data = parseConfigToml(readConfigText(path), path);
  const parsed = ConfigFileSchema.safeParse(data, { reportInput: true });
  if (!parsed.success) {
    throw new ArborError(
      'config',
      `${path}: ${formatIssues(parsed.error.issues)} (\`arbor config check ${path}\` shows where)`,
    );
  }
  return parsed.data;
}
