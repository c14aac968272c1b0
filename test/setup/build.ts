import { execFileSync } from 'node:child_process';
import { fileURLToPath } from 'node:url';

/**
 * End-to-end tests run the real `arbor` binary and real child processes from `dist/`, so the build
 * must match the sources: the same steps as `npm run build` (the type-check build is incremental;
 * the bundles take a fraction of a second).
 */
export default function setup(): void {
  const root = fileURLToPath(new URL('../../', import.meta.url));
  execFileSync(
    process.execPath,
    [`${root}node_modules/typescript/bin/tsc`, '-p', 'tsconfig.build.json'],
    {
      cwd: root,
      stdio: ['ignore', 'ignore', 'inherit'],
    },
  );
}
