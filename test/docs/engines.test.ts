import { readFileSync } from 'node:fs';
import { describe, expect, it } from 'vitest';

const pkg = JSON.parse(readFileSync(new URL('../../package.json', import.meta.url), 'utf8')) as {
  engines: { node: string };
};

describe('the Node.js versions arbor says it runs on', () => {
  it('takes every line from 20 on, as `arbor doctor` says (22 and 24 included)', () => {
    expect(pkg.engines.node).toBe('>=20.0.0');
  });
});
