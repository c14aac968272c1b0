import { mkdtemp, readFile, readdir, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import {
  parsePlanToml,
  readPlanFile,
  runLogPath,
  stringifyPlan,
  writePlanAtomic,
} from '../../src/plan/index.js';
import { isArborError } from '../../src/protocol/index.js';
import { readPlanFixture } from '../helpers/plan-fixtures.js';

describe('runLogPath', () => {
  it.each([
    ['plan.toml', 'plan.run.toml'],
    ['/work/plans/fix.toml', '/work/plans/fix.run.toml'],
    ['plan.run.toml', 'plan.run.toml'],
    ['/a/b.run.toml', '/a/b.run.toml'],
    ['plan', 'plan.run.toml'],
    ['plan.TOML', 'plan.TOML.run.toml'],
  ])('%s → %s', (input, expected) => {
    expect(runLogPath(input)).toBe(expected);
  });
});

describe('plan files', () => {
  let dir: string;
  const plan = parsePlanToml(readPlanFixture('valid/tree.toml'));

  beforeEach(async () => {
    dir = await mkdtemp(path.join(tmpdir(), 'arbor-plan-file-'));
  });

  afterEach(async () => {
    await rm(dir, { recursive: true, force: true });
  });

  it('writes a run-log beside the plan and never touches the authored file', async () => {
    const authored = path.join(dir, 'plan.toml');
    const original = readPlanFixture('valid/tree.toml');
    await writeFile(authored, original);
    const log = runLogPath(authored);
    const running = {
      ...plan,
      subtask: plan.subtask.map((s) =>
        s.id === 'docs' ? { ...s, status: 'running' as const } : s,
      ),
    };
    await writePlanAtomic(log, running);
    expect(await readFile(authored, 'utf8')).toBe(original);
    expect(await readPlanFile(log)).toEqual(running);
    expect((await readdir(dir)).sort()).toEqual(['plan.run.toml', 'plan.toml']);
  });

  it('replaces the previous content whole and leaves no temporary file', async () => {
    const file = path.join(dir, 'plan.run.toml');
    await writePlanAtomic(file, plan);
    const done = { ...plan, subtask: plan.subtask.map((s) => ({ ...s, status: 'done' as const })) };
    await writePlanAtomic(file, done);
    expect(await readFile(file, 'utf8')).toBe(stringifyPlan(done));
    expect(await readdir(dir)).toEqual(['plan.run.toml']);
  });

  it('cleans up its temporary file when the rename fails', async () => {
    const target = path.join(dir, 'is-a-dir');
    await writeFile(path.join(dir, 'keep'), '');
    await import('node:fs/promises').then((fs) =>
      fs.mkdir(path.join(target, 'x'), { recursive: true }),
    );
    await expect(writePlanAtomic(target, plan)).rejects.toThrow();
    expect((await readdir(dir)).sort()).toEqual(['is-a-dir', 'keep']);
  });

  it('does not write once aborted', async () => {
    const file = path.join(dir, 'plan.run.toml');
    const signal = AbortSignal.abort(new Error('stop'));
    await expect(writePlanAtomic(file, plan, { signal })).rejects.toThrow('stop');
    expect(await readdir(dir)).toEqual([]);
  });

  it('reports a missing file as a config error naming it', async () => {
    const file = path.join(dir, 'absent.toml');
    const error: unknown = await readPlanFile(file).catch((e: unknown) => e);
    expect(isArborError(error, 'config')).toBe(true);
    expect((error as Error).message).toBe(`Cannot read plan file \`${file}\`: no such file.`);
  });

  it('reports a directory as a config error', async () => {
    const error: unknown = await readPlanFile(dir).catch((e: unknown) => e);
    expect(isArborError(error, 'config')).toBe(true);
    expect((error as Error).message).toMatch(/it is a directory/);
  });

  it('refuses bytes that are not UTF-8, and names the file in TOML errors', async () => {
    const binary = path.join(dir, 'binary.toml');
    await writeFile(binary, Buffer.from([0x67, 0x6f, 0x61, 0x6c, 0xff, 0xfe]));
    const error: unknown = await readPlanFile(binary).catch((e: unknown) => e);
    expect(isArborError(error, 'plan_invalid')).toBe(true);
    expect((error as Error).message).toBe(`${binary}: expected UTF-8 text, got invalid bytes.`);
    const bad = path.join(dir, 'bad.toml');
    await writeFile(bad, 'x = = 1');
    await expect(readPlanFile(bad)).rejects.toThrow(`${bad}:1:5: invalid TOML`);
  });
});
