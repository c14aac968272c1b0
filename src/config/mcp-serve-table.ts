import { z } from 'zod';
import { ScopeSchema } from '../protocol/index.js';
import { DURATION_PATTERN } from './duration.js';

/**
 * `[mcp.serve]`: what `arbor mcp` lets a caller (an MCP host) have. Each value is a cap: a
 * caller may ask for less, never more. It sits under `[mcp]` beside `[[mcp.server]]` (the servers
 * arbor is a client of) because both are about MCP, and `[mcp]` already holds that array.
 */
export const McpServeTableSchema = z
  .strictObject({
    grant: z
      .strictObject({
        fs_read: ScopeSchema.optional().describe(
          'Paths a caller may let its run read (default: the working directory).',
        ),
        fs_write: ScopeSchema.optional().describe(
          'Paths a caller may let its run write (default: none).',
        ),
        exec: ScopeSchema.optional().describe(
          'Commands a caller may let its run run (default: none).',
        ),
        net: ScopeSchema.optional().describe(
          'Hosts a caller may let its run reach (default: none).',
        ),
      })
      .optional()
      .describe(
        "The most a caller's run may touch; the `--fs-read`, `--fs-write`, `--exec` and `--net` flags of `arbor mcp` win over it.",
      ),
    max_tokens: z
      .number()
      .int()
      .positive()
      .optional()
      .describe("The most tokens one caller's run may use (default: `[limits] max_tokens`)."),
    max_usd: z
      .number()
      .positive()
      .optional()
      .describe("The most USD one caller's run may spend (default: `[budget] usd`)."),
    max_deadline: z
      .string()
      .regex(DURATION_PATTERN, 'expected a duration such as `30s`, `10m` or `1h`')
      .optional()
      .describe("The longest one caller's run may take (default: `[limits] deadline`)."),
    plan_files: z
      .boolean()
      .optional()
      .describe(
        '`arbor.plan` may read a plan from a file path the caller names (stdio only; default true).',
      ),
  })
  .describe('What `arbor mcp` lets an MCP host ask for: caps a caller can only narrow.');
export type McpServeTable = z.infer<typeof McpServeTableSchema>;
