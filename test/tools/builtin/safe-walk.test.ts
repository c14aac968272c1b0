import { mkdir, symlink, writeFile } from 'node:fs/promises';
import path from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { MAX_LINKS, SafeWalk, type RealPathFence } from '../../../src/tools/builtin/safe-walk.js';
import { makeTempDir, openDescriptors } from '../../helpers/builtin-tools.js';

/**
 *   base/ws/src/a.ts, base/ws/file.txt
 *   base/ws/inner -> src                  relative, stays inside
 *   base/ws/abs-inner -> <base>/ws/src    absolute, stays inside
 *   base/ws/round -> ../ws/./src          `..` and `.` in a target
 *   base/ws/out -> ../secret              leads out
 *   base/ws/loop-a <-> loop-b             a loop
 *   base/ws/chain-0 -> … -> chain-N -> src
 *   base/secret/key.txt
 */
let base: string;
let ws: string;
let remove: () => Promise<void>;

beforeAll(async () => {
  ({ dir: base, remove } = await makeTempDir('arbor-walk-'));
  ws = path.join(base, 'ws');
  await mkdir(path.join(ws, 'src'), { recursive: true });
  await mkdir(path.join(base, 'secret'));
  await writeFile(path.join(ws, 'src/a.ts'), 'a');
  await writeFile(path.join(ws, 'file.txt'), 'f');
  await writeFile(path.join(base, 'secret/key.txt'), 'k');
  await symlink('src', path.join(ws, 'inner'));
  await symlink(path.join(ws, 'src'), path.join(ws, 'abs-inner'));
  await symlink('../ws/./src', path.join(ws, 'round'));
  await symlink('../secret', path.join(ws, 'out'));
  await symlink('loop-b', path.join(ws, 'loop-a'));
  await symlink('loop-a', path.join(ws, 'loop-b'));
  for (let i = 0; i <= MAX_LINKS; i++) {
    await symlink(i === MAX_LINKS ? 'src' : `chain-${i + 1}`, path.join(ws, `chain-${i}`));
  }
});

afterAll(async () => {
  await remove();
});

/** Walks `p` to its last component; the walk is closed before the answer is returned. */
async function advance(p: string, create?: RealPathFence) {
  const walk = await SafeWalk.start(p);
  try {
    const failure = await walk.advance(create === undefined ? {} : { create });
    return { failure, last: walk.last, lastReal: walk.lastReal, real: walk.real };
  } finally {
    await walk.close();
  }
}

describe('SafeWalk.advance', () => {
  it.each([
    ['a plain path', 'src/a.ts', 'src/a.ts'],
    ['a relative link that stays inside', 'inner/a.ts', 'src/a.ts'],
    ['an absolute link that stays inside', 'abs-inner/a.ts', 'src/a.ts'],
    ['`..` and `.` inside a link target', 'round/a.ts', 'src/a.ts'],
    ['a link that leads out (judged by the caller)', 'out/key.txt', '../secret/key.txt'],
  ])('resolves %s to its real path', async (_what, p, real) => {
    const walked = await advance(path.join(ws, p));
    expect(walked.failure).toBeUndefined();
    expect(walked.lastReal).toBe(path.join(ws, real));
  });

  it('stays at / for `..` above the root, as the kernel does', async () => {
    const walked = await advance(`/../../..${ws}/src/a.ts`);
    expect(walked.lastReal).toBe(path.join(ws, 'src/a.ts'));
  });

  it('ends on the directory itself when the path ends in `..`', async () => {
    const walked = await advance(`${ws}/src/..`);
    expect(walked).toMatchObject({ failure: undefined, last: undefined, real: ws });
  });

  it.each([
    ['a symlink loop', 'loop-a/x', 'loop'],
    [`${MAX_LINKS + 1} links in a row`, 'chain-0/a.ts', 'loop'],
    ['a file where a directory is expected', 'file.txt/x', 'not-dir'],
    ['a missing directory', 'nope/x', 'missing'],
  ])('stops at %s', async (_what, p, kind) => {
    expect((await advance(path.join(ws, p))).failure).toEqual({ kind });
  });

  it(`follows ${MAX_LINKS} links in a row`, async () => {
    const walked = await advance(path.join(ws, 'chain-1/a.ts'));
    expect(walked).toMatchObject({ failure: undefined, lastReal: path.join(ws, 'src/a.ts') });
  });
});

describe('SafeWalk.advance with create', () => {
  const fence = (allowed: string): RealPathFence & { asked: string[] } => {
    const asked: string[] = [];
    return {
      asked,
      refusal: (real) => {
        asked.push(real);
        return real.startsWith(`${allowed}/`) ? undefined : `outside ${allowed}`;
      },
    };
  };

  it('makes missing directories once the fence passes the path the walk ends at', async () => {
    const gate = fence(ws);
    const walked = await advance(path.join(ws, 'made/deeper/new.txt'), gate);
    expect(walked).toMatchObject({ failure: undefined, real: path.join(ws, 'made/deeper') });
    expect(gate.asked).toEqual([
      path.join(ws, 'made/deeper/new.txt'),
      path.join(ws, 'made/deeper/new.txt'),
    ]);
  });

  it('makes nothing the fence refuses, even through a link', async () => {
    const walked = await advance(path.join(ws, 'out/planted/new.txt'), fence(ws));
    expect(walked.failure).toEqual({
      kind: 'refused',
      message: `outside ${ws}`,
    });
    expect((await advance(path.join(base, 'secret/planted/x'))).failure).toEqual({
      kind: 'missing',
    });
  });
});

describe('SafeWalk.followLast', () => {
  it.each([
    ['inner', 'followed', 'src'],
    ['file.txt', 'not-link', 'file.txt'],
  ])('%s: %s, then the last component is %s', async (name, outcome, last) => {
    const walk = await SafeWalk.start(path.join(ws, name));
    try {
      expect(await walk.advance()).toBeUndefined();
      expect(await walk.followLast()).toBe(outcome);
      expect(await walk.advance()).toBeUndefined();
      expect(walk.lastReal).toBe(path.join(ws, last));
    } finally {
      await walk.close();
    }
  });
});

it('closes every descriptor it opened, whatever the outcome', async () => {
  const before = await openDescriptors();
  for (const p of ['src/a.ts', 'inner/a.ts', 'out/key.txt', 'loop-a/x', 'file.txt/x', 'nope/x']) {
    await advance(path.join(ws, p));
  }
  expect(await openDescriptors()).toBe(before);
});
