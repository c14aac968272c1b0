import { existsSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { describe, expect, it } from 'vitest';
import { tempDb } from '../helpers/arbor-process.js';
import { runArbor } from '../helpers/run-arbor.js';

const KEY = { ARBOR_FLEET_KEY: 'cli-test-fleet-key-8e2d4c6a0b1f3e5d' };
/** Nothing listens on port 1 of loopback. */
const NOWHERE = 'redis://127.0.0.1:1';

describe('the fleet on the command line: bad input is refused before anything runs', () => {
  it('prints the worker help', async () => {
    const { code, stdout } = await runArbor(['worker', '--help']);
    expect(code).toBe(0);
    expect(stdout).toContain('Usage: arbor worker');
    expect(stdout).toContain('ARBOR_FLEET_KEY');
  });

  it('refuses a worker without the fleet key', async () => {
    const { code, stderr } = await runArbor(['worker', '--redis', NOWHERE], {
      env: { ARBOR_FLEET_KEY: '' },
    });
    expect(code).toBe(2);
    expect(stderr).toContain('The fleet needs a shared key: set `ARBOR_FLEET_KEY`');
  });

  it('refuses a short fleet key, without echoing it', async () => {
    const { code, stderr } = await runArbor(['worker', '--redis', NOWHERE], {
      env: { ARBOR_FLEET_KEY: 'short-key-abc' },
    });
    expect(code).toBe(2);
    expect(stderr).toContain('at least 32 characters, got 13');
    expect(stderr).not.toContain('short-key-abc');
  });

  it('refuses `--redis` with a password, without echoing it', async () => {
    const { code, stderr } = await runArbor(
      ['worker', '--redis', 'redis://:pw-sekrit-77@127.0.0.1:1'],
      { env: KEY },
    );
    expect(code).toBe(2);
    expect(stderr).toContain('`--redis` must not carry a password');
    expect(stderr).not.toContain('pw-sekrit-77');
  });

  it('says a Redis that cannot be reached cannot be reached', async () => {
    const { code, stderr } = await runArbor(['worker', '--redis', NOWHERE], { env: KEY });
    expect(code).toBe(2);
    expect(stderr).toContain("Cannot reach the fleet's Redis at redis://127.0.0.1:1");
  });

  it('refuses a worker concurrency of 0 and labels that are not names', async () => {
    const zero = await runArbor(['worker', '--redis', NOWHERE, '--concurrency', '0'], { env: KEY });
    expect(zero.code).toBe(2);
    expect(zero.stderr).toContain('Expected `--concurrency` to be a whole number from 1 to 1024');
    const label = await runArbor(['worker', '--redis', NOWHERE, '--labels', 'gpu,no spaces'], {
      env: KEY,
    });
    expect(label.code).toBe(2);
    expect(label.stderr).toContain('a label in `--labels`');
  });

  it('refuses too many labels and a workspace that is not there before connecting, leaving nothing running', async () => {
    const labels = await runArbor(['worker', '--redis', NOWHERE, '--labels', 'a,b,c,d,e'], {
      env: KEY,
    });
    expect(labels.code).toBe(2);
    expect(labels.stderr).toContain('A worker takes at most 4 labels, got 5: a, b, c, d, e.');
    expect(labels.stderr).not.toContain('Cannot reach');
    const missing = path.join(tmpdir(), `arbor-no-workspace-${process.pid}`, 'ws');
    const workspace = await runArbor(['worker', '--redis', NOWHERE, '--workspace', missing], {
      env: KEY,
    });
    expect(workspace.code).toBe(2);
    expect(workspace.stderr).toContain(`The workspace \`${missing}\` does not exist`);
    expect(existsSync(missing)).toBe(false);
  });

  it('refuses `--provider queue` without a Redis to reach the fleet', async () => {
    const { code, stderr } = await runArbor(
      ['run', '--provider', 'queue', '--mock-llm', 'examples/playbooks/demo.json', 'Go.'],
      { env: { ...KEY, ARBOR_DB: tempDb(), ARBOR_REDIS_URL: '' } },
    );
    expect(code).toBe(2);
    expect(stderr).toContain(
      '`--provider queue` runs nodes on fleet workers and needs their Redis',
    );
  });

  it('refuses `--provider queue` without the fleet key, before any node starts', async () => {
    const db = tempDb();
    const { code, stderr } = await runArbor(
      [
        'run',
        '--provider',
        'queue',
        '--redis',
        NOWHERE,
        '--mock-llm',
        'examples/playbooks/demo.json',
        'Go.',
      ],
      { env: { ARBOR_FLEET_KEY: '', ARBOR_DB: db } },
    );
    expect(code).toBe(2);
    expect(stderr).toContain('The fleet needs a shared key');
  });
});
