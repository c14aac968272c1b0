import { chmodSync, existsSync, mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterEach, describe, expect, it } from 'vitest';
import { openRuntime } from '../../src/config/index.js';
import { FleetIdentity } from '../../src/fleet/fleet-identity.js';
import { writePrivateKeyFile } from '../../src/fleet/key-file.js';
import { withStore } from '../../src/store/index.js';

const dirs: string[] = [];
function tempDb(): string {
  const dir = mkdtempSync(join(tmpdir(), 'arbor-open-runtime-'));
  dirs.push(dir);
  return join(dir, 'arbor.db');
}
afterEach(() => {
  for (const dir of dirs.splice(0)) rmSync(dir, { recursive: true, force: true });
});

/** No tracing: nothing of OpenTelemetry is loaded. */
const ENV = { OTEL_SDK_DISABLED: 'true' };

describe('openRuntime', () => {
  it('opens the store the settings name, with the working directory the host gives', async () => {
    const dbPath = tempDb();
    const runtime = await openRuntime({ dbPath, pool: 0 }, ENV, { cwd: '/tmp' });
    expect(runtime.cwd).toBe('/tmp');
    expect(runtime.env).toBe(ENV);
    runtime.store.createRun({
      id: 'run_1',
      instruction: 'x',
      status: 'running',
      createdAt: 1,
      meta: {},
    });
    await runtime.close();
    expect(withStore(dbPath, (store) => store.getRun('run_1')?.instruction)).toBe('x');
  });

  const fleet = {
    url: 'redis://127.0.0.1:1',
    queue: undefined,
    labels: [],
    attempts: undefined,
    keyFile: undefined,
    admit: [],
    admitFile: undefined,
  };

  it('refuses a fleet without its key before it opens the store', async () => {
    const dbPath = tempDb();
    await expect(openRuntime({ dbPath, pool: 0, fleet }, ENV)).rejects.toThrow(
      "The fleet needs the supervisor's private key: make a key pair with `arbor worker keygen",
    );
    expect(existsSync(dbPath)).toBe(false);
  });

  it('refuses the retired shared key, saying what to do instead', async () => {
    const dbPath = tempDb();
    const env = { ...ENV, ARBOR_FLEET_KEY: 'x'.repeat(40) };
    await expect(openRuntime({ dbPath, pool: 0, fleet }, env)).rejects.toThrow(
      /^`ARBOR_FLEET_KEY` is set, but the fleet's shared key is retired: .*`\[\[queue\.admit\]\]`.* Then unset `ARBOR_FLEET_KEY`\.$/,
    );
    expect(existsSync(dbPath)).toBe(false);
  });

  it('refuses a fleet that admits no worker, and a key file others may read', async () => {
    const dir = mkdtempSync(join(tmpdir(), 'arbor-open-runtime-key-'));
    dirs.push(dir);
    const keyFile = join(dir, 'supervisor.key');
    writePrivateKeyFile(keyFile, FleetIdentity.generate().pem);
    const dbPath = tempDb();
    await expect(
      openRuntime({ dbPath, pool: 0, fleet: { ...fleet, keyFile } }, ENV),
    ).rejects.toThrow('The fleet admits no worker');
    chmodSync(keyFile, 0o644);
    await expect(
      openRuntime({ dbPath, pool: 0, fleet: { ...fleet, keyFile } }, ENV),
    ).rejects.toThrow(`has mode 0644: its group or others may use it`);
    expect(existsSync(dbPath)).toBe(false);
  });
});
