import { setFlagsFromString } from 'node:v8';

/**
 * V8 flags a child sets on itself, first thing. `--liftoff-only` compiles WebAssembly (the HTTP
 * parser of Node's `fetch`, which every child uses to reach its model) with the baseline compiler
 * only. Without it, a child that has made one model call spends about 120–190 ms at exit waiting
 * for the optimising compiler's background jobs on that module; with it, about 6 ms, and the parser
 * is still fast enough for model responses. Only where V8 has Liftoff (x64, arm64).
 *
 * Set at run time rather than on the command line: the same flag on the command line made a cold
 * child's spawn → `ready` about 30 ms slower on a small machine (Node's start-up takes a slower
 * path when V8's flags differ from its defaults), and the flag only matters once the first
 * WebAssembly module is compiled, long after start-up. See `docs/performance.md`.
 */
export function setChildV8Flags(arch: string = process.arch): string[] {
  const flags = arch === 'x64' || arch === 'arm64' ? ['--liftoff-only'] : [];
  for (const flag of flags) setFlagsFromString(flag);
  return flags;
}
