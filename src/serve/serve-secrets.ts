import type { ServeTable } from '../config/index.js';

/** An `env:NAME` reference's value, when it has one. */
function envValue(reference: string | undefined, env: NodeJS.ProcessEnv): string[] {
  if (reference === undefined) return [];
  const value = env[reference.slice('env:'.length)];
  return value === undefined || value === '' ? [] : [value];
}

/**
 * The tokens of `arbor serve` that no run it starts may show: every principal's bearer token, the
 * operator token made at start (`generated`), the `on_gate` webhook's token. A run's model that
 * read one (a sibling's file, the environment) and echoes it gets `[redacted]` shown instead.
 */
export function serveSecrets(
  table: ServeTable | undefined,
  env: NodeJS.ProcessEnv,
  generated: string | undefined,
): string[] {
  return [
    ...(table?.principal ?? []).flatMap((principal) => envValue(principal.token, env)),
    ...envValue(table?.on_gate?.token, env),
    ...(generated === undefined ? [] : [generated]),
  ];
}
