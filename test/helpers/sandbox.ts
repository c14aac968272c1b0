import { describeNeeding } from './needs.js';
import type { SandboxSettings } from '../../src/protocol/index.js';
import { probeSandbox } from '../../src/tools/index.js';

/** What this machine's bubblewrap can do, probed once per test file. */
export const SANDBOX: SandboxSettings = await probeSandbox({ trust: { writable: [] } });

/** Bubblewrap works here: sandboxed commands can run. */
export const HAS_SANDBOX = SANDBOX.mode === 'bwrap';

/** A `describe` for tests that need bubblewrap (see `describeNeeding`). */
export function describeWithSandbox(name: string, body: () => void): void {
  describeNeeding(
    name,
    'bubblewrap',
    HAS_SANDBOX ? undefined : (SANDBOX.reason ?? 'unknown reason'),
    body,
  );
}
