import { chmodSync, chownSync, copyFileSync, mkdirSync, mkdtempSync, symlinkSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { describe, expect, it } from 'vitest';
import { locateTrustedBinary, trustProblem } from '../../../src/tools/index.js';

const SH = '/bin/sh';
const none = { name: 'ARBOR_BWRAP', value: undefined };

function scratch(): string {
  return mkdtempSync(path.join(tmpdir(), 'arbor-trust-'));
}

describe('locateTrustedBinary', () => {
  it('finds a system binary in the fixed directories, never on PATH', () => {
    const found = locateTrustedBinary('sh', none, { writable: [] });
    expect(found).toMatchObject({
      trusted: true,
      origin: expect.stringMatching(/^from \/(usr\/)?bin$/) as unknown,
    });
  });

  it('takes the operator setting alone and says where it came from', () => {
    expect(
      locateTrustedBinary('bwrap', { name: 'ARBOR_BWRAP', value: SH }, { writable: [] }),
    ).toEqual({
      trusted: true,
      path: SH,
      origin: 'from ARBOR_BWRAP',
    });
  });

  it('refuses a relative setting and a missing one without falling back', () => {
    expect(
      locateTrustedBinary('sh', { name: 'ARBOR_BWRAP', value: 'bin/sh' }, { writable: [] }),
    ).toMatchObject({
      trusted: false,
      reason: expect.stringMatching(/absolute path/) as unknown,
    });
    expect(
      locateTrustedBinary(
        'sh',
        { name: 'ARBOR_BWRAP', value: '/nonexistent/sh' },
        { writable: [] },
      ),
    ).toMatchObject({ trusted: false, path: '/nonexistent/sh' });
  });

  it('says a binary is not installed when no system directory has it', () => {
    expect(locateTrustedBinary('arbor-no-such-tool', none, { writable: [] })).toMatchObject({
      trusted: false,
      reason: expect.stringMatching(/not installed/) as unknown,
    });
  });
});

describe('trustProblem', () => {
  it('refuses a binary inside a path a node may write, even a root-owned system one', () => {
    expect(trustProblem(SH, { writable: [path.dirname(SH)] })).toMatch(
      /which an agent of this run may write/,
    );
  });

  it('refuses a link inside a writable path that leads to a trusted binary (the link can be swapped)', () => {
    const dir = scratch();
    const link = path.join(dir, 'bwrap');
    symlinkSync(SH, link);
    expect(trustProblem(link, { writable: [dir] })).toMatch(/inside/);
  });

  it('refuses a binary under a directory writable by group or others', () => {
    const dir = path.join(scratch(), 'bin');
    mkdirSync(dir);
    chmodSync(dir, 0o775);
    const file = path.join(dir, 'bwrap');
    copyFileSync(SH, file);
    chmodSync(file, 0o755);
    expect(trustProblem(file, { writable: [] })).toMatch(/writable by its group/);
    chmodSync(dir, 0o755);
    // /tmp itself is writable by anyone: still refused, one level up.
    expect(trustProblem(file, { writable: [] })).toMatch(/writable by anyone/);
  });

  it('refuses a binary writable by others, and one owned by another user', () => {
    const file = path.join(scratch(), 'bwrap');
    copyFileSync(SH, file);
    chmodSync(file, 0o757);
    expect(trustProblem(file, { writable: [] })).toMatch(/writable by anyone/);
    chmodSync(file, 0o755);
    const me = process.getuid?.() ?? 0;
    if (me === 0) chownSync(file, 4242, 4242);
    expect(trustProblem(file, { writable: [], uid: me === 0 ? 0 : me + 1 })).toMatch(
      /owned by uid/,
    );
  });

  it('refuses what is not a regular executable file', () => {
    expect(trustProblem(path.dirname(SH), { writable: [] })).toMatch(/not a regular file/);
    expect(trustProblem('/nonexistent/bwrap', { writable: [] })).toMatch(/cannot be read/);
  });

  it('trusts a root-owned system binary outside every writable path', () => {
    expect(trustProblem(SH, { writable: [scratch()] })).toBeUndefined();
  });
});
