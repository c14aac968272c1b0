import { execFile } from 'node:child_process';
import {
  cpSync,
  existsSync,
  mkdtempSync,
  readdirSync,
  readFileSync,
  rmSync,
  writeFileSync,
} from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { promisify } from 'node:util';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { loadNodeSqlite } from '../../src/store/open-sql-database.js';

const exec = promisify(execFile);
const ROOT = fileURLToPath(new URL('../../', import.meta.url));
const EXAMPLES = path.join(ROOT, 'examples/library');
const NPM = process.platform === 'win32' ? 'npm.cmd' : 'npm';

/** `npm install SPEC` in `project`, from the cache where it can, running no install script. */
async function install(project: string, spec: string): Promise<void> {
  await exec(
    NPM,
    ['install', '--prefer-offline', '--ignore-scripts', '--no-audit', '--no-fund', spec],
    { cwd: project },
  );
}

/**
 * The package as users get it: `npm pack`, the tarball installed into a fresh project with its
 * dependencies from the registry, every example in examples/library type-checked with
 * `tsc --strict` (declaration files included) and run with node. Nothing is imported from dist/.
 */
describe('arbor as an installed package', () => {
  let project: string;

  beforeAll(async () => {
    project = mkdtempSync(path.join(tmpdir(), 'arbor-consumer-'));
    // The global setup has built dist/; pack it as it is.
    const { stdout } = await exec(
      NPM,
      ['pack', '--ignore-scripts', '--json', '--pack-destination', project],
      {
        cwd: ROOT,
      },
    );
    const [packed] = JSON.parse(stdout) as { filename: string }[];
    writeFileSync(
      path.join(project, 'package.json'),
      JSON.stringify({ name: 'consumer', version: '1.0.0', private: true, type: 'module' }),
    );
    await install(project, `./${packed?.filename ?? ''}`);
    // The package brings no native module: better-sqlite3 is an optional peer, which a project
    // adds only on a Node.js without node:sqlite.
    expect(existsSync(path.join(project, 'node_modules/better-sqlite3'))).toBe(false);
    if (loadNodeSqlite() === undefined) {
      // As a Node 20 user does; the native binding is not rebuilt here: the one this checkout
      // built is the same version.
      const ours = JSON.parse(
        readFileSync(path.join(ROOT, 'node_modules/better-sqlite3/package.json'), 'utf8'),
      ) as { version: string };
      await install(project, `better-sqlite3@${ours.version}`);
      cpSync(
        path.join(ROOT, 'node_modules/better-sqlite3/build'),
        path.join(project, 'node_modules/better-sqlite3/build'),
        { recursive: true },
      );
    }
    for (const file of readdirSync(EXAMPLES))
      cpSync(path.join(EXAMPLES, file), path.join(project, file));
    writeFileSync(
      path.join(project, 'tsconfig.json'),
      JSON.stringify({
        compilerOptions: {
          target: 'ES2022',
          module: 'NodeNext',
          moduleResolution: 'NodeNext',
          strict: true,
          exactOptionalPropertyTypes: true,
          noUncheckedIndexedAccess: true,
          skipLibCheck: false,
          outDir: 'out',
          types: ['node'],
          typeRoots: [path.join(ROOT, 'node_modules/@types')],
        },
        include: ['*.ts'],
      }),
    );
  }, 180_000);

  afterAll(() => {
    rmSync(project, { recursive: true, force: true });
  });

  it('ships the API with declaration files and subpath exports, nothing from dist/ paths', () => {
    const manifest = JSON.parse(
      readFileSync(path.join(project, 'node_modules/arbor/package.json'), 'utf8'),
    ) as { exports: Record<string, unknown> };
    expect(Object.keys(manifest.exports)).toEqual([
      '.',
      './testing',
      './protocol',
      './package.json',
    ]);
    for (const file of readdirSync(EXAMPLES))
      expect(readFileSync(path.join(EXAMPLES, file), 'utf8')).not.toMatch(/from '[^']*dist\//);
  });

  it('type-checks every example with tsc --strict against the installed declarations', async () => {
    const tsc = path.join(ROOT, 'node_modules/typescript/bin/tsc');
    await expect(exec(process.execPath, [tsc, '-p', project])).resolves.toBeDefined();
  }, 60_000);

  it('runs the weather example: a host tool called by the root and by a process child, answers streamed', async () => {
    const { stdout, stderr } = await exec(
      process.execPath,
      [path.join(project, 'out/weather.js')],
      {
        cwd: project,
        env: { PATH: process.env.PATH ?? '', HOME: process.env.HOME ?? '' },
      },
    );
    // Streamed text of the root, then the result line.
    expect(stdout).toContain(
      'Oslo is 21 °C, and the sub-agent says Bergen is 17 °C.\ncompleted (exit 0)',
    );
    expect(stderr).toContain('[0] calls weather.lookup');
    expect(stderr).toContain('[0.1] spawned');
    expect(stderr).toContain('[0.1] calls weather.lookup');
  }, 60_000);

  it('runs the approvals example: a policy ask answered through the handle from the call arguments', async () => {
    const { stdout, stderr } = await exec(
      process.execPath,
      [path.join(project, 'out/approvals.js')],
      {
        cwd: project,
        env: { PATH: process.env.PATH ?? '', HOME: process.env.HOME ?? '' },
      },
    );
    expect(stderr).toContain('refund 40? yes');
    expect(stderr).toContain('refund 4000? no');
    expect(stdout).toContain(
      'completed: Refunded 40; the 4000 refund was not approved. (refunded: 40)',
    );
  }, 60_000);

  it('runs the plan example: the shipped plan from code, every leaf done, the final leaf printed', async () => {
    const { stdout, stderr } = await exec(process.execPath, [path.join(project, 'out/plan.js')], {
      cwd: project,
      env: { PATH: process.env.PATH ?? '', HOME: process.env.HOME ?? '' },
    });
    expect(stderr.match(/ completed$/gm)).toHaveLength(4);
    expect(stderr).toContain('completed; run-log ');
    expect(stdout.trim().length).toBeGreaterThan(0);
  }, 60_000);

  it('runs the golden-run example: a recorded run replayed with arbor/testing, its asserts holding', async () => {
    const { stdout } = await exec(process.execPath, [path.join(project, 'out/golden.js')], {
      cwd: project,
      env: { PATH: process.env.PATH ?? '', HOME: process.env.HOME ?? '' },
    });
    expect(stdout).toMatch(/^golden run run_\w+ replays run_\w+: We have 12 units of A1\.$/m);
  }, 60_000);
});
