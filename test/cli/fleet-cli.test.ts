import { chmodSync, existsSync, mkdtempSync, readFileSync, statSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { describe, expect, it } from 'vitest';
import { readPrivateKeyFile } from '../../src/fleet/key-file.js';
import { tempDb } from '../helpers/arbor-process.js';
import { admitConfig, SUPERVISOR, testIdentity, WORKERS } from '../helpers/fleet.js';
import { runArbor } from '../helpers/run-arbor.js';

/** A worker's key file, by the variable, and the supervisor it serves. */
const KEY = { ARBOR_FLEET_PRIVATE_KEY_FILE: WORKERS[0]?.file ?? '' };
const SERVES = ['--supervisor-key', SUPERVISOR.publicKey];
/** Nothing listens on port 1 of loopback. */
const NOWHERE = 'redis://127.0.0.1:1';

describe('the fleet on the command line: bad input is refused before anything runs', () => {
  it('prints the worker help', async () => {
    const { code, stdout } = await runArbor(['worker', '--help']);
    expect(code).toBe(0);
    expect(stdout).toContain('Usage: arbor worker');
    expect(stdout).toContain('--supervisor-key');
    expect(stdout).toContain('keygen [--out FILE]');
  });

  it('refuses a worker without a key of its own, and names the retired shared key if it is set', async () => {
    const none = await runArbor(['worker', '--redis', NOWHERE, ...SERVES], { env: {} });
    expect(none.code).toBe(2);
    expect(none.stderr).toContain('A worker needs a private key of its own: make one with');
    const retired = await runArbor(['worker', '--redis', NOWHERE, ...SERVES], {
      env: { ARBOR_FLEET_KEY: 'cli-test-fleet-key-8e2d4c6a0b1f3e5d' },
    });
    expect(retired.code).toBe(2);
    expect(retired.stderr).toContain(
      "`ARBOR_FLEET_KEY` is set, but the fleet's shared key is retired",
    );
    expect(retired.stderr).not.toContain('cli-test-fleet-key');
  });

  it('refuses a worker that serves no supervisor, or a supervisor key that is not one', async () => {
    const none = await runArbor(['worker', '--redis', NOWHERE], { env: KEY });
    expect(none.code).toBe(2);
    expect(none.stderr).toContain('A worker serves the supervisors it is given');
    const bad = await runArbor(['worker', '--redis', NOWHERE, '--supervisor-key', 'ed25519:x'], {
      env: KEY,
    });
    expect(bad.code).toBe(2);
    expect(bad.stderr).toContain('`--supervisor-key`: Expected a fleet public key');
  });

  it('refuses a key file its group or others may read, before connecting (exit 2)', async () => {
    const loose = testIdentity('loose');
    chmodSync(loose.file, 0o640);
    const { code, stderr } = await runArbor(
      ['worker', '--redis', NOWHERE, '--key', loose.file, ...SERVES],
      { env: {} },
    );
    expect(code).toBe(2);
    expect(stderr).toContain(`The fleet key \`${loose.file}\` has mode 0640`);
    expect(stderr).toContain(`chmod 600 ${loose.file}`);
    expect(stderr).not.toContain('Cannot reach');
  });

  it('makes a key pair: the private key at mode 0600, the public key on stdout, never overwritten', async () => {
    const dir = mkdtempSync(path.join(tmpdir(), 'arbor-keygen-'));
    const out = path.join(dir, 'worker.key');
    const made = await runArbor(['worker', 'keygen', '--out', out]);
    expect(made.code, made.stderr).toBe(0);
    expect(statSync(out).mode & 0o777).toBe(0o600);
    const [publicKey, keyId] = made.stdout.trimEnd().split('\n');
    const identity = readPrivateKeyFile(out);
    expect(publicKey).toBe(identity.publicKey.text);
    expect(keyId).toBe(`key id ${identity.publicKey.id}`);
    expect(made.stdout).not.toContain('PRIVATE');
    const before = readFileSync(out, 'utf8');
    const again = await runArbor(['worker', 'keygen', '--out', out]);
    expect(again.code).toBe(2);
    expect(again.stderr).toContain('already exists: a key file is never overwritten');
    expect(readFileSync(out, 'utf8')).toBe(before);
  });

  it('refuses `--redis` with a password, without echoing it', async () => {
    const { code, stderr } = await runArbor(
      ['worker', '--redis', 'redis://:pw-sekrit-77@127.0.0.1:1', ...SERVES],
      { env: KEY },
    );
    expect(code).toBe(2);
    expect(stderr).toContain('`--redis` must not carry a password');
    expect(stderr).not.toContain('pw-sekrit-77');
  });

  it('says a Redis that cannot be reached cannot be reached', async () => {
    const { code, stderr } = await runArbor(['worker', '--redis', NOWHERE, ...SERVES], {
      env: KEY,
    });
    expect(code).toBe(2);
    expect(stderr).toContain("Cannot reach the fleet's Redis at redis://127.0.0.1:1");
  });

  it('refuses a worker concurrency of 0 and labels that are not names', async () => {
    const zero = await runArbor(['worker', '--redis', NOWHERE, ...SERVES, '--concurrency', '0'], {
      env: KEY,
    });
    expect(zero.code).toBe(2);
    expect(zero.stderr).toContain('Expected `--concurrency` to be a whole number from 1 to 1024');
    const label = await runArbor(
      ['worker', '--redis', NOWHERE, ...SERVES, '--labels', 'gpu,no spaces'],
      {
        env: KEY,
      },
    );
    expect(label.code).toBe(2);
    expect(label.stderr).toContain('a label in `--labels`');
  });

  it('refuses too many labels and a workspace that is not there before connecting, leaving nothing running', async () => {
    const labels = await runArbor(
      ['worker', '--redis', NOWHERE, ...SERVES, '--labels', 'a,b,c,d,e'],
      {
        env: KEY,
      },
    );
    expect(labels.code).toBe(2);
    expect(labels.stderr).toContain('A worker takes at most 4 labels, got 5: a, b, c, d, e.');
    expect(labels.stderr).not.toContain('Cannot reach');
    const missing = path.join(tmpdir(), `arbor-no-workspace-${process.pid}`, 'ws');
    const workspace = await runArbor(
      ['worker', '--redis', NOWHERE, ...SERVES, '--workspace', missing],
      {
        env: KEY,
      },
    );
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

  it("refuses `--provider queue` without the supervisor's key, before any node starts", async () => {
    const db = tempDb();
    const { code, stderr } = await runArbor(
      [
        'run',
        '--provider',
        'queue',
        '--redis',
        NOWHERE,
        '--config',
        admitConfig(),
        '--mock-llm',
        'examples/playbooks/demo.json',
        'Go.',
      ],
      { env: { ARBOR_DB: db } },
    );
    expect(code).toBe(2);
    expect(stderr).toContain("The fleet needs the supervisor's private key");
  });
});
