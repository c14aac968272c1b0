import { describe, it } from 'vitest';
import type { SandboxSettings } from '../../src/protocol/index.js';
import { probeSandbox } from '../../src/tools/index.js';

/** What this machine's bubblewrap can do, probed once per test file. */
export const SANDBOX: SandboxSettings = await probeSandbox();

/** Bubblewrap works here: sandboxed commands can run. */
export const HAS_SANDBOX = SANDBOX.mode === 'bwrap';

/**
 * A `describe` for tests that need bubblewrap. Where it is missing they are skipped with the
 * reason printed — unless `CI` is set, where a missing sandbox is a failure: CI must never pass by
 * skipping the tests that prove the sandbox works.
 */
export function describeWithSandbox(name: string, body: () => void): void {
  if (HAS_SANDBOX) {
    describe(name, body);
    return;
  }
  const reason = SANDBOX.reason ?? 'unknown reason';
  if (process.env.CI !== undefined && process.env.CI !== '' && process.env.CI !== 'false') {
    describe(name, () => {
      it('needs bubblewrap', () => {
        throw new Error(`CI is set and bubblewrap is unavailable: ${reason}`);
      });
    });
    return;
  }
  process.stderr.write(`skipping "${name}": bubblewrap is unavailable (${reason})\n`);
  describe.skip(name, body);
}
