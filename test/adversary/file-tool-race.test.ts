import { spawn, spawnSync } from 'node:child_process';
import { once } from 'node:events';
import { mkdir, readFile, readdir, symlink, writeFile } from 'node:fs/promises';
import path from 'node:path';
import { createInterface } from 'node:readline';
import { afterAll, beforeAll, expect, it } from 'vitest';
import type { ToolOutput } from '../../src/tools/index.js';
import { builtinHost, caveats, makeTempDir } from '../helpers/builtin-tools.js';
import { describeNeeding } from '../helpers/needs.js';

/**
 * The red-team race of issue 33: a process with write access to a directory under the grant
 * swaps a real directory and a symlink to outside the grant (`renameat2(RENAME_EXCHANGE)`, atomic,
 * in a tight loop), while the file tools work under that directory. Under check-then-open, 58 of
 * 90 writes landed outside and 26 of 90 reads returned the outside file. Here every file tool runs
 * thousands of times through the real tool objects, and not one may touch the outside.
 *
 *   base/ws/arena/d/       the real directory: target.txt ("inside"), edit.txt
 *   base/ws/arena/l     -> base/outside (absolute), exchanged with d all the time
 *   base/outside/          target.txt ("OUTSIDE"), edit.txt, outside-only.txt
 */
const ROUNDS = 1000;
/** Calls in flight at once, so the tools' own steps interleave with each other and the swaps. */
const PARALLEL = 8;

const SWAPPER = String.raw`
import ctypes, os, signal, sys
libc = ctypes.CDLL(None, use_errno=True)
AT_FDCWD, RENAME_EXCHANGE = -100, 2
a, b = os.fsencode(sys.argv[1]), os.fsencode(sys.argv[2])
stop = False
def halt(*_):
    global stop
    stop = True
signal.signal(signal.SIGTERM, halt)
def swap():
    if libc.renameat2(AT_FDCWD, a, AT_FDCWD, b, RENAME_EXCHANGE) != 0:
        sys.exit('renameat2: ' + os.strerror(ctypes.get_errno()))
print('ready', flush=True)
swaps = 0
while not stop:
    swap()
    swaps += 1
if swaps % 2:
    swap()
    swaps += 1
print(swaps, flush=True)
`;

/** Why this machine cannot run the swapper, if it cannot. */
function swapperMissing(): string | undefined {
  const probe = spawnSync('python3', ['-c', 'import ctypes; ctypes.CDLL(None).renameat2'], {
    stdio: ['ignore', 'ignore', 'pipe'],
    encoding: 'utf8',
  });
  if (probe.error !== undefined) return `python3 did not start: ${probe.error.message}`;
  return probe.status === 0 ? undefined : `no renameat2 through ctypes: ${probe.stderr.trim()}`;
}

let base: string;
let remove: () => Promise<void>;

beforeAll(async () => {
  ({ dir: base, remove } = await makeTempDir('arbor-race-'));
  await mkdir(path.join(base, 'ws/arena/d'), { recursive: true });
  await mkdir(path.join(base, 'outside'));
  await writeFile(path.join(base, 'ws/arena/d/target.txt'), 'inside');
  await writeFile(path.join(base, 'ws/arena/d/edit.txt'), 'inside edit');
  await writeFile(path.join(base, 'outside/target.txt'), 'OUTSIDE');
  await writeFile(path.join(base, 'outside/edit.txt'), 'outside edit');
  await writeFile(path.join(base, 'outside/outside-only.txt'), 'x');
  await symlink(path.join(base, 'outside'), path.join(base, 'ws/arena/l'));
});

afterAll(async () => {
  await remove();
});

/** Starts the swapper; `stop` ends it (leaving d the directory again) and returns its swaps. */
async function startSwapper(): Promise<{ stop: () => Promise<number> }> {
  const arena = path.join(base, 'ws/arena');
  const child = spawn('python3', ['-c', SWAPPER, path.join(arena, 'd'), path.join(arena, 'l')], {
    stdio: ['ignore', 'pipe', 'pipe'],
  });
  const lines = createInterface({ input: child.stdout })[Symbol.asyncIterator]();
  let stderr = '';
  child.stderr.on('data', (chunk: Buffer) => (stderr += chunk.toString()));
  const ready = await lines.next();
  expect(ready.value, stderr).toBe('ready');
  return {
    stop: async () => {
      const exited = once(child, 'exit');
      child.kill('SIGTERM');
      const count = await lines.next();
      const [code] = (await exited) as [number | null];
      expect(code, stderr).toBe(0);
      return Number(count.value);
    },
  };
}

/** Runs `calls` with `PARALLEL` in flight at a time. */
async function runAll(calls: (() => Promise<void>)[]): Promise<void> {
  let next = 0;
  const worker = async () => {
    while (next < calls.length) await calls[next++]?.();
  };
  await Promise.all(Array.from({ length: PARALLEL }, worker));
}

const tally = () => ({ inside: 0, outside: 0, refused: 0, other: 0 });

describeNeeding(
  'file tools raced by a directory/symlink swapper',
  'python3 with renameat2',
  swapperMissing(),
  () => {
    it(`win 0 of ${ROUNDS} reads and ${ROUNDS} writes, nor any edit, list or glob`, async ({
      annotate,
    }) => {
      const ws = path.join(base, 'ws');
      const { call } = builtinHost({
        caveats: caveats({ fs_read: [ws], fs_write: [ws] }),
        cwd: ws,
      });
      const reads = tally();
      const writes = tally();
      const views = tally();
      const errors = new Map<string, number>();
      const other = (counter: ReturnType<typeof tally>, out: ToolOutput) => {
        counter.other += 1;
        const why = String(out.content)
          .replace(/^.*? (?=[a-z])/, '')
          .slice(0, 80);
        errors.set(why, (errors.get(why) ?? 0) + 1);
      };
      const calls: (() => Promise<void>)[] = [];
      for (let i = 0; i < ROUNDS; i++) {
        calls.push(async () => {
          const out = await call('fs.read', { path: 'arena/d/target.txt' });
          if (out.refused === true) reads.refused += 1;
          else if (out.content === 'inside') reads.inside += 1;
          else if (out.content === 'OUTSIDE') reads.outside += 1;
          else other(reads, out);
        });
        calls.push(async () => {
          const out = await call('fs.write', { path: `arena/d/w-${i}.txt`, content: 'w' });
          if (out.refused === true) writes.refused += 1;
          else if (out.isError) other(writes, out);
        });
        if (i % 5 !== 0) continue;
        // Fewer of the others: each must still never see or touch the outside.
        calls.push(async () => {
          const out = await call('fs.edit', {
            path: 'arena/d/edit.txt',
            old_string: 'edit',
            new_string: `edit${i}`,
            replace_all: true,
          });
          if (out.refused === true) views.refused += 1;
          else if (out.isError) other(views, out);
        });
        calls.push(async () => {
          const tool = i % 10 === 0 ? 'fs.list' : 'fs.glob';
          const out = await call(
            tool,
            tool === 'fs.list' ? { path: 'arena/d' } : { pattern: '*', path: 'arena/d' },
          );
          if (out.refused === true) views.refused += 1;
          else if (String(out.content).includes('outside-only.txt')) views.outside += 1;
          else if (out.isError) other(views, out);
          else views.inside += 1;
        });
      }
      const swapper = await startSwapper();
      const started = performance.now();
      try {
        await runAll(calls);
      } finally {
        const swaps = await swapper.stop();
        const ms = Math.round(performance.now() - started);
        const outsideWrites = (await readdir(path.join(base, 'outside'))).filter((n) =>
          n.startsWith('w-'),
        ).length;
        writes.outside = outsideWrites;
        writes.inside = (await readdir(path.join(base, 'ws/arena/d'))).filter((n) =>
          n.startsWith('w-'),
        ).length;
        const outsideEdit = await readFile(path.join(base, 'outside/edit.txt'), 'utf8');
        const summary = JSON.stringify({
          swaps,
          ms,
          reads,
          writes,
          views,
          outsideEdit,
          errors: Object.fromEntries(errors),
        });
        await annotate(summary);
        expect(reads.outside, summary).toBe(0);
        expect(writes.outside, summary).toBe(0);
        expect(views.outside, summary).toBe(0);
        expect(outsideEdit, summary).toBe('outside edit');
        // The race was real: the swapper ran throughout, and the tools met the link many times.
        expect(swaps, summary).toBeGreaterThan(1000);
        expect(reads.refused + writes.refused, summary).toBeGreaterThan(50);
        expect(reads.inside + writes.inside, summary).toBeGreaterThan(50);
      }
    });
  },
);
