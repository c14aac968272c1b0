import { readFileSync } from 'node:fs';
import { dirname, join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { describe, expect, it } from 'vitest';

/**
 * What a child process loads before it reads its payload is most of its start-up time. The MCP
 * client (the SDK builds hundreds of schemas when its modules are evaluated: about 100 ms) must be
 * loaded only by a child whose payload grants a server, through a dynamic import; these tests read
 * the built child bundle and fail if any static import pulls the SDK in again.
 */
const ENTRY = fileURLToPath(new URL('../../dist/bundle/child.mjs', import.meta.url));
const MCP_SDK = 'node_modules/@modelcontextprotocol/sdk/';
/** The path the bundler notes for the price table's module (as `//#region …`). */
const PRICE_TABLE = 'node_modules/@pydantic/genai-prices/';
/** The supervisor's bundle carries it: the marker is the one a bundle of it writes. */
const CLI = fileURLToPath(new URL('../../dist/bundle/arbor.mjs', import.meta.url));

/** Relative imports of a bundle file: static (`import … from`, `export … from`) and dynamic. */
function importsOf(source: string): { static: string[]; dynamic: string[] } {
  const statics = [...source.matchAll(/^(?:import|export)\b[^;]*?\bfrom\s*"(\.[^"]+)"/gm)];
  const sideEffect = [...source.matchAll(/^import\s*"(\.[^"]+)"/gm)];
  const dynamic = [...source.matchAll(/\bimport\(\s*"(\.[^"]+)"\s*\)/g)];
  return {
    static: [...statics, ...sideEffect].map((match) => match[1]!),
    dynamic: dynamic.map((match) => match[1]!),
  };
}

/** Every file of the bundle reachable from `entry`, split by how it is first reached. */
function closure(entry: string): { eager: Map<string, string>; lazy: Map<string, string> } {
  const eager = new Map<string, string>();
  const lazy = new Map<string, string>();
  const visit = (file: string, into: Map<string, string>, pending: string[]): void => {
    if (eager.has(file) || into.has(file)) return;
    const source = readFileSync(file, 'utf8');
    into.set(file, source);
    const imports = importsOf(source);
    for (const spec of imports.static) visit(join(dirname(file), spec), into, pending);
    for (const spec of imports.dynamic) pending.push(join(dirname(file), spec));
  };
  const pending: string[] = [];
  visit(entry, eager, pending);
  for (let file = pending.pop(); file !== undefined; file = pending.pop())
    if (!eager.has(file)) visit(file, lazy, pending);
  return { eager, lazy };
}

describe('the child bundle', () => {
  const { eager, lazy } = closure(ENTRY);

  it('loads no MCP SDK code before its payload asks for a server', () => {
    const loaded = [...eager].filter(([, source]) => source.includes(MCP_SDK));
    expect(loaded.map(([file]) => file)).toEqual([]);
  });

  it('imports node:child_process (about 6 ms) only when a command is run', () => {
    const eagerly = [...eager].filter(([, source]) =>
      /^import\b[^;]*?\bfrom\s*"node:child_process"/m.test(source),
    );
    expect(eagerly.map(([file]) => file)).toEqual([]);
    const onDemand = [...eager, ...lazy].some(([, source]) =>
      source.includes('await import("node:child_process")'),
    );
    expect(onDemand).toBe(true);
  });

  // The default price table is the supervisor's: a child reports tokens and never prices them.
  it('carries no price table, eagerly or on demand', () => {
    const carrying = [...eager, ...lazy].filter(([, source]) => source.includes(PRICE_TABLE));
    expect(carrying.map(([file]) => file)).toEqual([]);
  });

  it('still carries the MCP client, in a chunk imported on demand', () => {
    const carrying = [...lazy].filter(([, source]) => source.includes(MCP_SDK));
    expect(carrying.length).toBeGreaterThan(0);
    expect(
      [...carrying].some(([, source]) => source.includes('StreamableHTTPClientTransport')),
    ).toBe(true);
  });
});

describe('the script the child’s start-up snapshot is built from', () => {
  const script = readFileSync(
    fileURLToPath(new URL('../../dist/bundle/child-snapshot.cjs', import.meta.url)),
    'utf8',
  );

  // Code in a snapshot has no module loader behind it: an `import()` there fails at run time
  // (ERR_VM_DYNAMIC_IMPORT_CALLBACK_MISSING), so what the child loads on first use is required.
  it('never calls import(), and requires nothing but Node’s own modules on its way to `ready`', () => {
    // (Type annotations in comments, `{import('…').T}`, are not calls.)
    expect(script).not.toMatch(/(?<![{\w.])import\(\s*"/);
    expect(script).toContain('require("node:dns/promises")');
    expect(script).toContain('require("node:child_process")');
  });

  it('carries no price table', () => {
    expect(script.includes(PRICE_TABLE)).toBe(false);
    expect(script.includes('cache_write_1h_mtok')).toBe(false);
  });

  it('is one file: the MCP client is in it, for children that are given a server', () => {
    expect(script).toContain('StreamableHTTPClientTransport');
  });

  // Its source lives in the snapshot's heap: one non-ASCII character would make V8 hold all of it
  // at two bytes a character, about 0.7 MB more in every child.
  it('is ASCII only, with local names shortened, and keeps the names of functions', () => {
    // (Booleans, so a failure does not print the whole script.)
    expect(/\P{ASCII}/u.test(script)).toBe(false);
    expect(script.includes('\\u2192')).toBe(true);
    expect(script.length).toBeLessThan(900_000);
    expect(script.includes('function decodeLine(')).toBe(true);
  });
});

describe('the price table', () => {
  // The markers above would pass vacuously if the bundler stopped naming the module: the CLI's
  // bundle, which the supervisor runs in, must show both.
  it('is in the supervisor’s bundle, under the marker the child’s bundles are searched for', () => {
    const cli = readFileSync(CLI, 'utf8');
    expect(cli.includes(PRICE_TABLE)).toBe(true);
    expect(cli.includes('cache_write_1h_mtok')).toBe(true);
  });
});
