import { execFileSync } from 'node:child_process';
import { rmSync } from 'node:fs';
import { fileURLToPath } from 'node:url';

/**
 * End-to-end tests run the real `arbor` binary and real child processes from `dist/`, so the build
 * must match the sources: the same steps as `npm run build` (the type-check build is incremental;
 * the bundles take a fraction of a second).
 */
export default function setup(): void {
  const root = fileURLToPath(new URL('../../', import.meta.url));
  const run = (script: string, args: string[]): void => {
    execFileSync(process.execPath, [`${root}node_modules/${script}`, ...args], {
      cwd: root,
      stdio: ['ignore', 'ignore', 'inherit'],
    });
  };
  run('typescript/bin/tsc', ['-p', 'tsconfig.build.json']);
  rmSync(`${root}dist/bundle`, { recursive: true, force: true });
  run('rolldown/bin/cli.mjs', ['-c', 'rolldown.config.js']);
}
