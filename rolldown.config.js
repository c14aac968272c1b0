import { readFileSync } from 'node:fs';
import path from 'node:path';
import { defineConfig } from 'rolldown';

/**
 * The MCP SDK declares no `sideEffects`, so a bundler must keep every SDK module a barrel file
 * re-exports, used or not: the child would load and evaluate the whole client (about 340 KB and
 * 70–100 ms of start-up) even when its payload grants no MCP server. Its modules only declare
 * classes, functions and schemas, so they are marked free of side effects: a bundle keeps what it
 * uses and drops the rest.
 */
const treeshake = {
  moduleSideEffects: [
    { test: /[\\/]node_modules[\\/]@modelcontextprotocol[\\/]sdk[\\/]/, sideEffects: false },
  ],
};

/** Copies the dashboard's page and stylesheet beside its script. */
function dashboardFiles(files) {
  return {
    name: 'arbor-dashboard-files',
    generateBundle() {
      for (const file of files)
        this.emitFile({ type: 'asset', fileName: path.basename(file), source: readFileSync(file) });
    },
  };
}

/**
 * Bundles the two process entry points, the CLI and the child, each into one file. Loading one
 * file instead of a few hundred small modules is most of a process's start-up time: it is what
 * makes spawn → `ready` fast. `dist/` keeps the per-module build for library use and tests.
 */
export default defineConfig([
  {
    input: 'dist/child/main.js',
    platform: 'node',
    treeshake,
    // Code that only some children need (the MCP client, ajv, the glob matcher) is imported on
    // first use and bundled in its own chunks, so a child loads it only when it uses it.
    output: {
      dir: 'dist/bundle',
      entryFileNames: 'child.mjs',
      chunkFileNames: 'chunks/child-[name]-[hash].mjs',
      format: 'esm',
    },
  },
  // The child once more, as one CommonJS script with nothing loaded on demand: what
  // `node --build-snapshot` takes to build the child's start-up snapshot (src/supervisor/launch/child-snapshot.ts).
  {
    input: 'dist/child/snapshot-main.js',
    platform: 'node',
    treeshake,
    // A snapshot's code cannot `import()` (Node's loader is not in it): Node's own modules that
    // the child loads on first use are `require`d instead.
    // Its source text is part of the snapshot's heap, which every child deserialises at start.
    // Local names shortened and white space removed take it from 1.2 MB to about 670 KB, and
    // non-ASCII characters written as escapes let V8 keep it at one byte a character instead of two
    // (a few dozen `→` and `…` made all of it two-byte): the blob falls from 8.9 to 7.1 MB, and a
    // cold child's start by about 12% (docs/performance.md). No other rewriting of the code, and
    // functions and classes keep their names (for stack traces and for code that reads them). The
    // bundle that children fall back to stays readable.
    output: {
      file: 'dist/bundle/child-snapshot.cjs',
      format: 'cjs',
      codeSplitting: false,
      dynamicImportInCjs: false,
      minify: { compress: false, mangle: true, codegen: { removeWhitespace: true } },
      keepNames: true,
      charset: 'ascii',
    },
  },
  {
    input: 'dist/cli/main.js',
    platform: 'node',
    treeshake,
    // A native module cannot be bundled; it loads from node_modules.
    external: ['better-sqlite3'],
    output: { file: 'dist/bundle/arbor.mjs', format: 'esm', codeSplitting: false },
  },
  // The web dashboard: one script (preact and the pages), its page and stylesheet, served by
  // `arbor serve` and `arbor ui` from dist/ui/; nothing is fetched from anywhere else.
  {
    input: 'ui/src/main.tsx',
    platform: 'browser',
    plugins: [dashboardFiles(['ui/index.html', 'ui/app.css'])],
    output: {
      dir: 'dist/ui',
      entryFileNames: 'app.js',
      format: 'esm',
      minify: true,
      codeSplitting: false,
    },
  },
]);
