import { existsSync, mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterEach, describe, expect, it } from 'vitest';
import { openRuntime } from '../../src/config/index.js';
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

  it('refuses a fleet without its key before it opens the store', async () => {
    const dbPath = tempDb();
    const fleet = { url: 'redis://127.0.0.1:1', queue: undefined, labels: [], attempts: undefined };
    await expect(openRuntime({ dbPath, pool: 0, fleet }, ENV)).rejects.toThrow('ARBOR_FLEET_KEY');
    expect(existsSync(dbPath)).toBe(false);
  });
});
