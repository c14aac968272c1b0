import { describe, it } from 'vitest';

/**
 * A `describe` for tests that need a system part (bubblewrap, Chromium, redis-server). Where it is
 * missing (`missing` says why) they are skipped with the reason printed, unless `CI` is set: there
 * a missing part fails, so CI never passes by skipping the tests that need it.
 */
export function describeNeeding(
  name: string,
  part: string,
  missing: string | undefined,
  body: () => void,
): void {
  if (missing === undefined) {
    describe(name, body);
    return;
  }
  if (process.env.CI !== undefined && process.env.CI !== '' && process.env.CI !== 'false') {
    describe(name, () => {
      it(`needs ${part}`, () => {
        throw new Error(`CI is set and ${part} is unavailable: ${missing}`);
      });
    });
    return;
  }
  process.stderr.write(`skipping "${name}": ${part} is unavailable (${missing})\n`);
  describe.skip(name, body);
}
