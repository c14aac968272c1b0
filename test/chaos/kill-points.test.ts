import { beforeAll, describe, expect, it } from 'vitest';
import { KILL_POINTS } from '../../src/supervisor/index.js';
import { killAt } from '../helpers/arbor-process.js';
import { recordedResults, resumeDir, runIdOf, type RunRecords } from '../helpers/resume-run.js';

const INSTRUCTION = 'Run the three-level listing.';

/** Every kill point, at each occurrence the three-level tree reaches it. */
const CASES: string[] = [
  'spawn-minted:1',
  'spawn-minted:2',
  'spawn-minted:3',
  'child-ready:1',
  'child-ready:3',
  'model-call:1',
  'model-call:2',
  'model-call:3',
  'model-call:4',
  'tool-result:1',
  'tool-result:2',
  'tool-result:3',
  'child-result:1',
  'child-result:2',
  'root-result:1',
];

let baseline: string;

beforeAll(async () => {
  const dir = await resumeDir();
  const run = await dir.run(INSTRUCTION);
  expect(run.code, run.stderr).toBe(0);
  baseline = run.stdout;
  expect(baseline).toContain('Root done');
});

/** Events after the resume began. */
function afterResume(records: RunRecords) {
  const at = records.events.find((e) => e.kind === 'run.resumed')?.seq ?? Infinity;
  return records.events.filter((e) => e.seq > at);
}

describe('chaos: kill the supervisor at every named point, then arbor resume', () => {
  it('covers every kill point', () => {
    // `gate-open` needs a node that asks a person: test/chaos/gate-kill.test.ts kills there.
    const covered = [...CASES, 'gate-open:1'].map((c) => c.split(':')[0]);
    expect(new Set(covered)).toEqual(new Set(KILL_POINTS));
  });

  it.each(CASES)('killed at %s: resumes to the uninterrupted answer', async (point) => {
    const dir = await resumeDir();
    const crashed = await dir.run(INSTRUCTION, killAt(point));
    expect(crashed.signal, crashed.stderr).toBe('SIGKILL');
    const runId = runIdOf(crashed);

    // Opening the store notices the dead supervisor: the run is interrupted, not running forever.
    const before = dir.read(runId);
    expect(before.run?.status).toBe('interrupted');
    expect(before.events.map((e) => e.kind)).toContain('run.interrupted');
    expect(before.nodes.every((n) => n.status !== 'running' && n.status !== 'spawning')).toBe(true);
    const finished = before.nodes.filter((n) => n.status === 'completed').map((n) => n.id);
    const done = new Map(
      before.nodes.map((n) => [n.id, recordedResults(before.transcripts.get(n.id) ?? [])]),
    );

    const resumed = await dir.resume(runId);
    expect(resumed.code, resumed.stderr).toBe(0);
    expect(resumed.stdout).toBe(baseline);

    const after = dir.read(runId);
    expect(after.run?.status).toBe('completed');
    const later = afterResume(after);
    // No node that had finished ran again: it made no model call and was not re-spawned.
    for (const id of finished) {
      expect(later.filter((e) => e.nodeId === id && e.kind === 'model.call')).toEqual([]);
      expect(later.filter((e) => e.nodeId === id && e.kind === 'node.resumed')).toEqual([]);
    }
    // No tool call whose result was recorded ran again.
    for (const [id, results] of done) {
      const repeated = later.filter(
        (e) => e.nodeId === id && e.kind === 'tool.call' && results.includes(String(e.data.id)),
      );
      expect(repeated).toEqual([]);
    }
    // No transition lost: three nodes, each ended once with its status recorded.
    expect(after.nodes.map((n) => [n.path, n.status])).toEqual([
      ['0', 'completed'],
      ['0.1', 'completed'],
      ['0.1.1', 'completed'],
    ]);
    for (const node of after.nodes) {
      const ends = after.events.filter((e) => e.nodeId === node.id && e.kind === 'node.end');
      expect(ends.length).toBeGreaterThanOrEqual(1);
      expect(ends.at(-1)?.data.status).toBe('completed');
    }
  });
});
