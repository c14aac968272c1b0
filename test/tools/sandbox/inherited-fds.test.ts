import { existsSync, openSync, closeSync } from 'node:fs';
import { fileURLToPath } from 'node:url';
import { afterEach, describe, expect, it } from 'vitest';
import {
  inheritableFds,
  sealStdio,
  type StdioSlot,
} from '../../../src/tools/sandbox/inherited-fds.js';
import {
  LOG_FD,
  SECRET,
  SECRET_FD,
  plantFiles,
  runSubject,
  type PlantedFiles,
} from '../../helpers/inherited-fds.js';

const onLinux = process.platform === 'linux';

let planted: PlantedFiles | undefined;
afterEach(() => {
  planted?.close();
  planted = undefined;
});

/** Planted secret and log, closed after the test. */
function plant(extra: readonly number[] = []): PlantedFiles {
  planted = plantFiles(extra);
  return planted;
}

describe('sealStdio', () => {
  const NULL = 99;
  it.each<[string, StdioSlot[], number[], StdioSlot[]]>([
    ['nothing inherited', ['pipe', 'pipe', 'pipe'], [], ['pipe', 'pipe', 'pipe']],
    [
      'covers each inherited descriptor, ignore between',
      ['ignore', 'pipe', 'pipe'],
      [4, 6],
      ['ignore', 'pipe', 'pipe', 'ignore', NULL, 'ignore', NULL],
    ],
    [
      "keeps arbor's own slots at their index",
      ['pipe', 'pipe', 'pipe', 'ipc', 'pipe', 7],
      [3, 4, 5, 6],
      ['pipe', 'pipe', 'pipe', 'ipc', 'pipe', 7, NULL],
    ],
    [
      'covers a slot arbor leaves vacant',
      ['pipe', 'pipe', 'pipe', 'ignore', null, undefined],
      [3, 4, 5],
      ['pipe', 'pipe', 'pipe', NULL, NULL, NULL],
    ],
    [
      'never touches stdin, stdout, stderr',
      ['ignore', 'ignore', 'ignore'],
      [0, 1, 2],
      ['ignore', 'ignore', 'ignore'],
    ],
  ])('%s', (_name, base, fds, expected) => {
    expect(sealStdio(base, fds, NULL)).toEqual(expected);
  });

  it('reaches a descriptor far up (fd 60000) with one slot per number', () => {
    const stdio = sealStdio(['pipe', 'pipe', 'pipe'], [60_000], NULL);
    expect(stdio).toHaveLength(60_001);
    expect(stdio[60_000]).toBe(NULL);
    expect(stdio.filter((slot) => slot === NULL)).toHaveLength(1);
  });
});

describe.runIf(onLinux)('inheritableFds', () => {
  it('leaves out what this process opens itself (close-on-exec)', () => {
    const fd = openSync(fileURLToPath(import.meta.url), 'r');
    try {
      expect(inheritableFds()).not.toContain(fd);
    } finally {
      closeSync(fd);
    }
  });

  it('finds descriptors a process inherited without close-on-exec', async () => {
    const files = plant([5000]);
    const listed = await runSubject(files.fds, ['list']);
    expect(listed.fds).toEqual(expect.arrayContaining([SECRET_FD, LOG_FD, 5000]));
  });
});

describe.runIf(onLinux)('withSealedStdio, from a process holding inherited descriptors', () => {
  const ATTACK = `cat /proc/self/fd/${SECRET_FD}; ls -l /proc/self/fd; echo pwned > /proc/self/fd/${LOG_FD}`;

  it('lets them through when it is not used (the subject is armed)', async () => {
    const files = plant();
    const plain = await runSubject(files.fds, ['sh', 'plain', ATTACK]);
    expect(plain.output).toContain(SECRET);
    expect(files.log()).toBe('pwned\n');
  });

  it('hands the spawned command /dev/null in their place: nothing read, nothing written', async () => {
    const files = plant([5000]);
    const sealed = await runSubject(files.fds, [
      'sh',
      'sealed',
      `${ATTACK}; cat /proc/self/fd/5000`,
    ]);
    expect(sealed.code).toBe(0);
    expect(sealed.output).not.toContain(SECRET);
    expect(sealed.output).not.toContain(files.dir);
    expect(sealed.output).toMatch(new RegExp(`${SECRET_FD} -> /dev/null`));
    expect(files.log()).toBe('');
  });

  it("keeps arbor's own extra pipe on its index", async () => {
    const files = plant();
    const run = await runSubject(files.fds, ['pipe3', `echo on-three >&3; ${ATTACK}`]);
    expect(run.up).toBe('on-three\n');
    expect(run.output).not.toContain(SECRET);
    expect(files.log()).toBe('');
  });

  it('seals runFile, the execFile arbor runs helper programs with', async () => {
    const files = plant();
    const run = await runSubject(files.fds, ['run-file', ATTACK]);
    expect(run.code).toBe(0);
    expect(`${String(run.stdout)}${String(run.stderr)}`).not.toContain(SECRET);
    expect(files.log()).toBe('');
  });

  it.runIf(existsSync('/bin/bash'))(
    'fails the spawn, never leaks, for a descriptor at the open-file limit',
    async () => {
      const files = plant();
      const shell = `ulimit -n 256; exec 255<'${files.secretFile}'`;
      const attack = 'cat /proc/self/fd/255';
      const plain = await runSubject({}, ['sh', 'plain', attack], shell);
      expect(plain.output).toContain(SECRET);
      const sealed = await runSubject({}, ['sh', 'sealed', attack], shell);
      expect(sealed.error).toMatch(/^(EINVAL|EMFILE)$/);
      expect(JSON.stringify(sealed)).not.toContain(SECRET);
    },
  );
});
