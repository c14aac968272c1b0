import { mkdtemp, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { resolveReferences } from '../../../src/tools/mcp/resolve-references.js';

const sources = {
  env: { HOME_DIR: '/home/u', EMPTY: '' },
  resolveSecret: (name: string) => ({ TOKEN: 'tok-abcdef' })[name],
};

describe('resolveReferences', () => {
  it('resolves secret, env and secret-file references inside values, and reports the secrets', async () => {
    const file = join(await mkdtemp(join(tmpdir(), 'arbor-ref-')), 'key');
    await writeFile(file, 'file-secret\n');
    const resolved = await resolveReferences(
      {
        Authorization: 'Bearer {{secret:TOKEN}}',
        'X-Home': '{{env:HOME_DIR}}/x',
        'X-Key': '{{secret-file:' + file + '}}',
        'X-Plain': 'literal-value',
      },
      'header',
      sources,
    );
    expect(resolved.values).toEqual({
      Authorization: 'Bearer tok-abcdef',
      'X-Home': '/home/u/x',
      'X-Key': 'file-secret',
      'X-Plain': 'literal-value',
    });
    // Every header value is treated as secret, literal or not.
    expect(resolved.secrets).toEqual(
      expect.arrayContaining(['tok-abcdef', '/home/u', 'file-secret', 'literal-value']),
    );
  });

  it('treats a literal variable as secret only when its name says so', async () => {
    const resolved = await resolveReferences(
      { LOG_LEVEL: 'debug', API_KEY: 'k-123456' },
      'variable',
      sources,
    );
    expect(resolved.secrets).toEqual(['k-123456']);
  });

  it.each([
    [{ A: '{{secret:NOPE}}' }, 'variable `A` refers to `{{secret:NOPE}}`, which is not available.'],
    [{ B: 'x {{env:UNSET}}' }, 'variable `B` refers to `{{env:UNSET}}`, which is not available.'],
    [
      { C: '{{secret-file:/no/such/file}}' },
      'variable `C` refers to `{{secret-file:/no/such/file}}`, which is not available.',
    ],
  ])('fails on an unresolved reference, naming it: %o', async (map, message) => {
    await expect(resolveReferences(map, 'variable', sources)).rejects.toMatchObject({
      code: 'config',
      message,
    });
  });

  it('says when no secret store is configured', async () => {
    await expect(resolveReferences({ A: '{{secret:X}}' }, 'variable', { env: {} })).rejects.toThrow(
      /no secret store is configured/,
    );
  });

  it('resolves an empty variable to an empty value, not a failure', async () => {
    expect((await resolveReferences({ A: '{{env:EMPTY}}' }, 'variable', sources)).values).toEqual({
      A: '',
    });
  });
});
