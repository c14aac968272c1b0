import { fileURLToPath } from 'node:url';
import { SpawnPayloadSchema, type SpawnPayload } from '../../src/protocol/index.js';
import { DEFAULT_TIMING, type ChildCommand, type Timing } from '../../src/supervisor/index.js';

/** A valid payload for tests; `overrides` are applied before validation fills the defaults. */
export function testPayload(overrides: Record<string, unknown> = {}): SpawnPayload {
  return SpawnPayloadSchema.parse({
    instruction: 'Say hello.',
    intelligence: { endpoints: [{ url: 'http://127.0.0.1:9/v1' }], model: 'scripted' },
    telemetry: { run_id: 'run_test', node_id: 'n0', node_path: '0' },
    ...overrides,
  });
}

/** Runs one of the fixture children in `test/fixtures/children/`. */
export function fixtureChild(name: string): ChildCommand {
  return {
    command: process.execPath,
    args: [fileURLToPath(new URL(`../fixtures/children/${name}.mjs`, import.meta.url))],
  };
}

/** Timings short enough for tests, long enough not to flake on a loaded 2-core machine. */
export const FAST_TIMING: Timing = {
  ...DEFAULT_TIMING,
  readyTimeoutMs: 10_000,
  progressTimeoutMs: 1_500,
  pongTimeoutMs: 600,
  deadlineGraceMs: 300,
  cancelGraceMs: 400,
  termGraceMs: 400,
  killWaitMs: 2_000,
  violationLimit: 3,
};
