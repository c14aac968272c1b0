import type { TerminalStatus } from '../protocol/index.js';
/**
 * Exit codes: a public contract, listed in docs/running.md ("Exit codes"). Scripts depend on
 * them; never renumber.
 */
export const EXIT = {
  ok: 0,
  internal: 1,
  usage: 2,
  partial: 3,
  intelUnavailable: 4,
  refused: 5,
  mcpDown: 6,
  exhausted: 7,
  interrupted: 130,
} as const;
export type ExitCode = (typeof EXIT)[keyof typeof EXIT];

/**
 * The exit code for how a run ended (the table in docs/running.md). A `failed` run is classified
 * by its error code: intelligence unavailable is 4, a required MCP server down is 6, anything
 * else 1.
 */
export function exitCodeFor(status: TerminalStatus, errorCode?: string): ExitCode {
  switch (status) {
    case 'completed':
      return EXIT.ok;
    case 'refused':
      return EXIT.refused;
    case 'exhausted_steps':
    case 'exhausted_tokens':
    case 'exhausted_budget':
    case 'deadline':
      return EXIT.exhausted;
    case 'stalled':
    case 'loop_detected':
      return EXIT.partial;
    case 'cancelled':
      return EXIT.interrupted;
    case 'crashed':
      return EXIT.internal;
    case 'failed':
      if (errorCode?.startsWith('intel_') === true) return EXIT.intelUnavailable;
      if (errorCode === 'mcp_unavailable') return EXIT.mcpDown;
      return EXIT.internal;
  }
}
