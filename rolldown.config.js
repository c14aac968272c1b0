import { defineConfig } from 'rolldown';

/**
 * Bundles the two process entry points, the CLI and the child, each into one file. Loading one
 * file instead of a few hundred small modules is most of a process's start-up time: it is what
 * makes spawn → `ready` fast. `dist/` keeps the per-module build for library use and tests.
 */
export default defineConfig([
  {
    input: 'dist/child/main.js',
    platform: 'node',
    output: { file: 'dist/bundle/child.mjs', format: 'esm', codeSplitting: false },
  },
  {
    input: 'dist/cli/main.js',
    platform: 'node',
    // A native module cannot be bundled; it loads from node_modules.
    external: ['better-sqlite3'],
    output: { file: 'dist/bundle/arbor.mjs', format: 'esm', codeSplitting: false },
  },
]);
