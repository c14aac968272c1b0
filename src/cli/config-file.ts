import { readFileSync } from 'node:fs';
import { parse as parseToml } from 'smol-toml';
import { z } from 'zod';
import { BudgetWindowSchema } from '../supervisor/budget/index.js';
import { PolicyRulesSchema, ToolPatternSchema } from '../tools/index.js';
import {
  ArborError,
  McpServerSpecSchema,
  DialectSchema,
  formatIssues,
  HeadersSchema,
  HttpUrlSchema,
  ModelPriceSchema,
  SamplingSchema,
  ScopeSchema,
  CountBoundSchema,
  RuntimeTrifectaModeSchema,
  SwapPolicySchema,
} from '../protocol/index.js';

const Duration = z.string().min(1);

const EndpointTable = z.strictObject({
  url: HttpUrlSchema,
  dialect: DialectSchema.optional(),
  model: z.string().min(1).optional(),
  /** Where the credential comes from: `env:NAME`. Literal keys are refused in files. */
  credential: z
    .string()
    .regex(
      /^env:[A-Za-z_][A-Za-z0-9_]*$/,
      'expected `env:NAME`; put the key in the environment, not in the file',
    )
    .optional(),
  headers: HeadersSchema.optional(),
});

/** The `--config` file: TOML, strict (an unknown key is an error naming it). */
export const ConfigFileSchema = z.strictObject({
  intelligence: z
    .strictObject({
      model: z.string().min(1).optional(),
      dialect: DialectSchema.optional(),
      /** Endpoint URLs, in failover order; or `[[intelligence.endpoint]]` tables for more detail. */
      endpoints: z.array(HttpUrlSchema).optional(),
      endpoint: z.array(EndpointTable).optional(),
      timeout: Duration.optional(),
      retries: z.number().int().min(0).optional(),
      swap_policy: SwapPolicySchema.optional(),
      sampling: SamplingSchema.strict().optional(),
      prices: z.record(z.string(), ModelPriceSchema).optional(),
      breaker: z
        .strictObject({
          threshold: z.number().int().positive().optional(),
          cooldown: Duration.optional(),
          cooldown_max: Duration.optional(),
        })
        .optional(),
    })
    .optional(),
  limits: z
    .strictObject({
      max_steps: z.number().int().positive().optional(),
      max_tokens: z.number().int().positive().optional(),
      deadline: Duration.optional(),
      max_depth: z.number().int().min(0).optional(),
      max_breadth: z.number().int().positive().optional(),
      max_total: z.number().int().positive().optional(),
      /** Spawns allowed per period across the run, written `8/2s`. */
      spawn_rate: z
        .string()
        .regex(/^\d+\/\d+(ms|s|m|h)$/, 'expected `COUNT/DURATION`, such as `8/2s`')
        .optional(),
    })
    .optional(),
  /** The tree's money ceiling, how children's asks beyond their share are met, and rate windows. */
  budget: z
    .strictObject({
      usd: z.number().positive().optional(),
      /** A `subagent.run` asking more than its caller has left gets what is left, or nothing. */
      on_excess: z.enum(['clamp', 'refuse']).optional(),
      /** `[[budget.window]]`: tokens and requests per minute, hour or day, shared across runs. */
      window: z.array(BudgetWindowSchema).optional(),
    })
    .optional(),
  /** MCP servers the root holds (children get subsets): `[[mcp.server]]` tables. */
  mcp: z
    .strictObject({ server: z.array(z.strictObject(McpServerSpecSchema.shape)).optional() })
    .optional(),
  security: z
    .strictObject({
      /** Let a node hold untrusted input, sensitive data and egress together (the static check). */
      allow_trifecta: z.boolean().optional(),
      /** Ordered rules; the first that matches a gated call decides: `[[security.policy]]`. */
      policy: PolicyRulesSchema.optional(),
      /** `auto` (bubblewrap where it works), `required` (or refuse to start), `off` (opt out). */
      sandbox: z.enum(['auto', 'required', 'off']).optional(),
      /** What an egress call of an exposed and sensitive node gets: `ask`, `deny` or `off`. */
      runtime_trifecta: RuntimeTrifectaModeSchema.optional(),
      /** Glob patterns of sensitive files on top of the built-in list. */
      sensitive_paths: z.array(z.string().min(1)).optional(),
      /** The risk score (0–1) at which egress is held as for the trifecta; 1 turns it off. */
      risk_ask_at: z.number().gt(0).max(1).optional(),
      /** Tool patterns (`github.*`) whose results count as untrusted content. */
      untrusted_tools: z.array(ToolPatternSchema).optional(),
    })
    .optional(),
  agent: z
    .strictObject({
      /** What `ask_human` does when no terminal can ask: `fail` at once, or `wait` for `arbor gate answer`. */
      ask_human_fallback: z.enum(['fail', 'wait']).optional(),
    })
    .optional(),
  /** The run's grant: what the root (and so every descendant) may touch. */
  grant: z
    .strictObject({
      fs_read: ScopeSchema.optional(),
      fs_write: ScopeSchema.optional(),
      exec: ScopeSchema.optional(),
      net: ScopeSchema.optional(),
      max_calls: CountBoundSchema.optional(),
    })
    .optional(),
  store: z.strictObject({ path: z.string().min(1).optional() }).optional(),
});
export type ConfigFile = z.infer<typeof ConfigFileSchema>;

/** Reads and validates a config file; every problem is a `config` error naming the file and key. */
export function loadConfigFile(path: string): ConfigFile {
  let text: string;
  try {
    text = readFileSync(path, 'utf8');
  } catch (error) {
    throw new ArborError(
      'config',
      `Cannot read the config file ${path}: ${(error as NodeJS.ErrnoException).code ?? String(error)}.`,
    );
  }
  let data: unknown;
  try {
    data = parseToml(text);
  } catch (error) {
    throw new ArborError(
      'config',
      `${path}: not valid TOML: ${error instanceof Error ? error.message.split('\n')[0] : String(error)}`,
    );
  }
  const parsed = ConfigFileSchema.safeParse(data, { reportInput: true });
  if (!parsed.success)
    throw new ArborError('config', `${path}: ${formatIssues(parsed.error.issues)}`);
  if (
    parsed.data.intelligence?.endpoints !== undefined &&
    parsed.data.intelligence.endpoint !== undefined
  ) {
    throw new ArborError(
      'config',
      `${path}: set either \`intelligence.endpoints\` or \`[[intelligence.endpoint]]\`, not both.`,
    );
  }
  return parsed.data;
}
