/** Flags of `arbor run`, as `parseArgs` returns them. */
export interface RunFlags {
  intel?: string | undefined;
  dialect?: string | undefined;
  model?: string | undefined;
  'max-steps'?: string | undefined;
  'max-tokens'?: string | undefined;
  'budget-usd'?: string | undefined;
  deadline?: string | undefined;
  'max-depth'?: string | undefined;
  provider?: string | undefined;
  config?: string | undefined;
  db?: string | undefined;
  json?: boolean | undefined;
  warm?: boolean | undefined;
  'mock-llm'?: string | undefined;
  'ask-fallback'?: string | undefined;
  'fs-read'?: string | undefined;
  'fs-write'?: string | undefined;
  exec?: string | undefined;
  net?: string | undefined;
  mcp?: string[] | undefined;
  'mcp-tags'?: string[] | undefined;
  'allow-trifecta'?: boolean | undefined;
  sandbox?: string | undefined;
  redis?: string | undefined;
  pool?: string | undefined;
}
