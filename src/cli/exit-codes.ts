/** Exit codes: a public contract (DESIGN §10). Scripts depend on them; never renumber. */
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
