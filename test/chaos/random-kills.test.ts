import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { KILL_POINTS } from '../../src/supervisor/index.js';
import type { PlaybookInput } from '../../src/testing/fake-llm/index.js';
import { killAt } from '../helpers/arbor-process.js';
import { resumeDir, runIdOf } from '../helpers/resume-run.js';

/** A tree shape: each node's children, nested. */
interface Shape {
  children: Shape[];
}

/** Trees of up to three levels, each node with up to two children. */
function shapeOf(levels: number): fc.Arbitrary<Shape> {
  if (levels === 0) return fc.constant({ children: [] });
  return fc.record({ children: fc.array(shapeOf(levels - 1), { maxLength: 2 }) });
}
const shape = shapeOf(2);

/** A playbook where every agent of the shape delegates to its children at once, then answers. */
function playbookOf(root: Shape): PlaybookInput {
  const scripts: { match?: { contains: string }; steps: Record<string, unknown>[] }[] = [];
  const visit = (node: Shape, path: string): void => {
    const tag = `Agent ${path}:`;
    const calls = node.children.map((_, i) => ({
      name: 'subagent.run',
      args: { instruction: `Agent ${path}.${String(i + 1)}: do your part.` },
    }));
    const answer = { text: `${tag} done with ${String(node.children.length)} children.` };
    const steps =
      calls.length === 0 ? [answer] : [{ text: `${tag} delegating.`, tool_calls: calls }, answer];
    // Deeper agents first: a child's instruction never contains its parent's tag as a prefix match.
    scripts.unshift(path === '0' ? { steps } : { match: { contains: tag }, steps });
    node.children.forEach((child, i) => {
      visit(child, `${path}.${String(i + 1)}`);
    });
  };
  visit(root, '0');
  return {
    scripts: [
      ...scripts.filter((s) => s.match !== undefined),
      ...scripts.filter((s) => s.match === undefined),
    ],
  };
}

describe('chaos: random kill points in random trees', () => {
  it('resumes every tree to the answer of its uninterrupted run', async () => {
    await fc.assert(
      fc.asyncProperty(
        shape,
        // Random trees ask nobody: `gate-open` is never reached (test/chaos/gate-kill.test.ts).
        fc.constantFrom(...KILL_POINTS.filter((p) => p !== 'gate-open')),
        fc.integer({ min: 1, max: 3 }),
        async (tree, point, occurrence) => {
          const playbook = playbookOf(tree);
          const clean = await (await resumeDir(playbook)).run('Agent 0: lead.');
          expect(clean.code, clean.stderr).toBe(0);

          const dir = await resumeDir(playbook);
          const crashed = await dir.run('Agent 0: lead.', killAt(`${point}:${String(occurrence)}`));
          // A point the tree reaches fewer times than `occurrence` never fires: nothing to resume.
          if (crashed.signal !== 'SIGKILL') {
            expect(crashed.stdout).toBe(clean.stdout);
            return;
          }
          const resumed = await dir.resume(runIdOf(crashed));
          expect(resumed.code, resumed.stderr).toBe(0);
          expect(resumed.stdout).toBe(clean.stdout);
          const records = dir.read(runIdOf(crashed));
          expect(records.run?.status).toBe('completed');
          expect(records.nodes.every((n) => n.status === 'completed')).toBe(true);
        },
      ),
      { numRuns: 5, seed: Number(process.env.ARBOR_CHAOS_SEED ?? 1515), endOnFailure: true },
    );
  });
});
