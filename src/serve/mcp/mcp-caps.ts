import { isDeepStrictEqual } from 'node:util';
import { z } from 'zod';
import { completeRequest, meetGrant } from '../../authority/index.js';
import {
  parseDuration,
  resolveGrant,
  type McpServeTable,
  type RunFlags,
  type RunSettings,
} from '../../config/index.js';
import type { Caveats, Scope } from '../../protocol/index.js';

/** What `arbor mcp` lets a caller have at most: its config's `[mcp.serve]`, resolved. */
export interface McpCaps {
  /** The grant of every caller's run unless it asks for less (the instance's own grant). */
  grant: Caveats;
  tokens?: number;
  usd?: number;
  deadlineMs?: number;
  /** `arbor.plan` may read a plan file the caller names (stdio only). */
  planFiles: boolean;
}

/**
 * The caps of `arbor mcp`: the grant from the `--fs-read`, `--fs-write`, `--exec` and `--net`
 * flags, else `[mcp.serve] grant`, else narrow (read the working directory; no write, exec or
 * network). The config's `[grant]` is `arbor run`'s and is not read. Tokens, USD and the deadline
 * from `[mcp.serve]`, else the run settings' own limits.
 */
export function resolveMcpCaps(
  settings: RunSettings,
  table: McpServeTable | undefined,
  flags: RunFlags,
  cwd: string,
): McpCaps {
  const given = table?.grant;
  const grant = resolveGrant(
    flags,
    {
      grant: {
        fs_read: given?.fs_read ?? [cwd],
        fs_write: given?.fs_write ?? [],
        exec: given?.exec ?? [],
        net: given?.net ?? [],
        max_calls: settings.grant.max_calls,
      },
    },
    cwd,
  );
  const tokens = table?.max_tokens ?? settings.budget.ceiling.tokens;
  const usd = table?.max_usd ?? settings.budget.ceiling.usd;
  const deadlineMs =
    table?.max_deadline === undefined
      ? settings.deadlineMs
      : parseDuration(table.max_deadline, '[mcp.serve] max_deadline');
  return {
    grant,
    ...(tokens === undefined ? {} : { tokens }),
    ...(usd === undefined ? {} : { usd }),
    ...(deadlineMs === undefined ? {} : { deadlineMs }),
    planFiles: table?.plan_files ?? true,
  };
}

const ScopeInputSchema = z
  .union([z.literal('all'), z.literal('none'), z.array(z.string().min(1))])
  .describe('`"all"`, `"none"`, or a list (paths relative to the server\'s directory; hosts).');

/** The grant a caller may ask for: each axis given narrows the server's. */
export const GrantInputSchema = z
  .strictObject({
    fs_read: ScopeInputSchema.optional(),
    fs_write: ScopeInputSchema.optional(),
    exec: ScopeInputSchema.optional(),
    net: ScopeInputSchema.optional(),
  })
  .describe(
    "What the run may touch; at most the server's cap (default: read the working directory only).",
  );

export const BudgetInputSchema = z
  .strictObject({
    tokens: z.number().int().positive().optional(),
    usd: z.number().positive().optional(),
  })
  .describe("The run's tree-wide ceilings; at most the server's.");

export interface CallerRequest {
  grant?: z.infer<typeof GrantInputSchema> | undefined;
  budget?: z.infer<typeof BudgetInputSchema> | undefined;
  deadline_seconds?: number | undefined;
}

/** What a caller's run gets: its request met with the caps, and each place the caps held it. */
export interface CappedRequest {
  grant: Caveats;
  budget: { tokens?: number; usd?: number };
  deadlineMs?: number;
  /** One line per axis the caller asked more of than the server allows. */
  held: string[];
}

const AXES = ['fs_read', 'fs_write', 'exec', 'net'] as const;

/** Meets a caller's request with the server's caps: a caller can only narrow, never widen. */
export function capRequest(caps: McpCaps, request: CallerRequest, cwd: string): CappedRequest {
  const held: string[] = [];
  const asked = askedGrant(request.grant ?? {}, cwd);
  const grant = meetGrant(caps.grant, completeRequest(asked), { cwd });
  for (const axis of AXES) {
    const wanted = asked[axis];
    if (wanted !== undefined && !isDeepStrictEqual(wanted, grant[axis]))
      held.push(
        `grant.${axis}: asked for ${scopeText(wanted)}, given ${scopeText(grant[axis])} (the server's cap is ${scopeText(caps.grant[axis])})`,
      );
  }
  const lower = (
    name: string,
    wanted: number | undefined,
    cap: number | undefined,
    unit: string,
  ) => {
    if (wanted === undefined) return cap;
    if (cap !== undefined && wanted > cap) {
      held.push(`${name}: asked for ${wanted}${unit}, given the server's cap of ${cap}${unit}`);
      return cap;
    }
    return wanted;
  };
  const tokens = lower('budget.tokens', request.budget?.tokens, caps.tokens, ' tokens');
  const usd = lower('budget.usd', request.budget?.usd, caps.usd, ' USD');
  const seconds = lower(
    'deadline_seconds',
    request.deadline_seconds,
    caps.deadlineMs === undefined ? undefined : caps.deadlineMs / 1000,
    ' s',
  );
  return {
    grant,
    budget: {
      ...(tokens === undefined ? {} : { tokens }),
      ...(usd === undefined ? {} : { usd }),
    },
    ...(seconds === undefined ? {} : { deadlineMs: Math.round(seconds * 1000) }),
    held,
  };
}

/** The axes a caller named, resolved as the config's `[grant]` is (real paths, checked hosts). */
function askedGrant(
  grant: z.infer<typeof GrantInputSchema>,
  cwd: string,
): Partial<Record<(typeof AXES)[number], Scope>> {
  const scopes: Partial<Record<(typeof AXES)[number], Scope>> = {};
  for (const axis of AXES) {
    const value = grant[axis];
    if (value !== undefined) scopes[axis] = value === 'none' ? [] : value;
  }
  const resolved = resolveGrant({ config: 'arbor.run grant' }, { grant: scopes }, cwd);
  return Object.fromEntries(
    AXES.filter((axis) => scopes[axis] !== undefined).map((axis) => [axis, resolved[axis]]),
  );
}

function scopeText(scope: Scope): string {
  if (scope === 'all') return '"all"';
  return scope.length === 0 ? '"none"' : scope.join(', ');
}
