import { mkdtemp, readFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { PlanSchema, RunLogWriter, parsePlanToml } from '../../src/plan/index.js';

const plan = () =>
  PlanSchema.parse({
    subtask: Array.from({ length: 50 }, (_, i) => ({ id: `t${i}`, instruction: `task ${i}` })),
  });

describe('RunLogWriter', () => {
  it('puts every update on disk, batching those that arrive during a write', async () => {
    const dir = await mkdtemp(join(tmpdir(), 'arbor-runlog-'));
    const file = join(dir, 'plan.run.toml');
    const p = plan();
    const writer = new RunLogWriter(file, p);
    const updates: Promise<void>[] = [];
    for (const subtask of p.subtask) {
      subtask.status = 'done';
      subtask.result = `${subtask.id} ok`;
      updates.push(writer.update());
    }
    await Promise.all(updates);
    const onDisk = parsePlanToml(await readFile(file, 'utf8'));
    expect(onDisk.subtask.every((s) => s.status === 'done')).toBe(true);
    expect(onDisk.subtask[49]?.result).toBe('t49 ok');
  });

  it('resolves an update only once a write holding it has finished', async () => {
    const dir = await mkdtemp(join(tmpdir(), 'arbor-runlog-'));
    const file = join(dir, 'plan.run.toml');
    const p = plan();
    const writer = new RunLogWriter(file, p);
    void writer.update();
    p.subtask[0]!.status = 'running';
    await writer.update();
    expect(parsePlanToml(await readFile(file, 'utf8')).subtask[0]?.status).toBe('running');
  });

  it('rejects flush when the log cannot be written, naming the cause', async () => {
    const writer = new RunLogWriter('/nonexistent-dir/plan.run.toml', plan());
    await expect(writer.update()).rejects.toThrow(/ENOENT/);
    await expect(writer.flush()).rejects.toThrow(/ENOENT/);
  });
});
