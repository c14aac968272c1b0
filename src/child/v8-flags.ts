import { setFlagsFromString } from 'node:v8';

/**
 * V8 flags a child sets on itself. `--liftoff-only` compiles WebAssembly (the HTTP parser of
 * Node's `fetch`) with the baseline compiler only. Without it, a process that has made one `fetch`
 * spends about 120–190 ms at exit waiting for the optimising compiler's background jobs on that
 * module; with it, about 8 ms. A child's model client no longer uses `fetch` (it speaks
 * `node:http`, whose parser is native: `src/intel/http-transport.ts`), but the MCP SDK's HTTP
 * transport does, so a child given an MCP server over HTTP still needs the flag. Only where V8 has
 * Liftoff (x64, arm64).
 */
export function childV8Flags(arch: string = process.arch): string[] {
  return arch === 'x64' || arch === 'arm64' ? ['--liftoff-only'] : [];
}

type Fetch = typeof fetch;

/**
 * Sets the child's V8 flags at its first `fetch`: after Node has loaded its HTTP client's code,
 * before that client compiles its parser (on its first connection, a turn of the event loop
 * later). The moment matters both ways. Node compiles its own modules from a code cache that V8
 * accepts only while its flags hash as they did when the cache was made: a module loaded after
 * any flag differs from its default is compiled from source, which made loading the HTTP client
 * cost about 25 ms more CPU (about 100 against 75 ms for the first request); it is most likely
 * also why the same flag on the command line made every cold start about 30 ms slower. And a flag
 * set after the parser is compiled would come too late.
 *
 * Wraps `target.fetch` (the global one by default) until its first call, then puts it back. A
 * child that never calls `fetch` (one without MCP servers over HTTP) never sets the flags.
 * Returns the flags it will set.
 */
export function setChildV8FlagsAtFirstFetch(
  flags: readonly string[] = childV8Flags(),
  target: { fetch: Fetch } = globalThis,
  setFlag: (flag: string) => void = setFlagsFromString,
): readonly string[] {
  if (flags.length === 0) return flags;
  const original = target.fetch;
  target.fetch = function fetch(input: Parameters<Fetch>[0], init?: Parameters<Fetch>[1]) {
    target.fetch = original;
    try {
      return original(input, init);
    } finally {
      for (const flag of flags) setFlag(flag);
    }
  };
  return flags;
}
