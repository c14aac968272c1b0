import { describe, expect, it } from 'vitest';
import { planReport, planSummaryText, type PlanRunReport } from '../../src/cli/plan-report.js';
import { parsePlanToml, type MergeReport, type SubtaskStatus } from '../../src/plan/index.js';

const COLLECT = 'Changes since 0.1:\n- plans run as child agents\n- a budget ledger';
const NOTES =
  '# Release notes\n\n## Features\nPlans run leaf by leaf.\n\n## Fixes\nResume is fixed.';

/**
 * `collect` feeds `features` and `fixes` (grouped under the branch `drafts`), which feed `notes`;
 * `lint` stands alone. The final leaves, which nothing depends on, are `notes` and `lint`.
 */
const RUN_LOG = `goal = "release notes"

[[subtask]]
id = "collect"
instruction = "Collect the changes."
status = "done"
result = """${COLLECT}"""

[[subtask]]
id = "drafts"
instruction = "Draft each section."

[[subtask]]
id = "features"
instruction = "Describe the features."
deps = ["collect"]
parent = "drafts"
status = "done"
result = "Features: plans run leaf by leaf.\\nAnd a second line."

[[subtask]]
id = "fixes"
instruction = "Describe the fixes."
deps = ["collect"]
parent = "drafts"
status = "done"
result = "Fixes: resume is fixed."

[[subtask]]
id = "notes"
instruction = "Join the sections."
deps = ["features", "fixes"]
status = "done"
result = """${NOTES}\n"""

[[subtask]]
id = "lint"
instruction = "Lint the notes."
status = "failed"
result = "exhausted_steps: ran out of steps\\npartial result: two warnings"
`;

function reportOf(
  text: string,
  summary: Partial<Record<SubtaskStatus, number>>,
  merge?: MergeReport,
): PlanRunReport {
  return {
    runId: 'run_1',
    logPath: '/work/plan.run.toml',
    plan: parsePlanToml(text),
    summary: {
      pending: 0,
      running: 0,
      done: 0,
      failed: 0,
      blocked: 0,
      cancelled: 0,
      ...summary,
    },
    merge,
    usage: { input_tokens: 10, output_tokens: 5 },
    leafNodes: new Map(),
  };
}

const REPORT = reportOf(RUN_LOG, { done: 4, failed: 1 });

describe('planSummaryText', () => {
  it('prints inner leaves on one line each, then every final leaf in full, then the totals', () => {
    expect(planSummaryText(REPORT)).toBe(
      [
        'done      collect   Changes since 0.1:',
        'done      features  Features: plans run leaf by leaf.',
        'done      fixes     Fixes: resume is fixed.',
        '',
        '=== notes (done) ===',
        NOTES,
        '',
        '=== lint (failed) ===',
        'exhausted_steps: ran out of steps',
        'partial result: two warnings',
        '',
        'plan: 4 done, 1 failed; run-log /work/plan.run.toml',
        '',
      ].join('\n'),
    );
  });

  it('prints a final leaf’s multi-line result whole, and no more than a line of the others', () => {
    const text = planSummaryText(REPORT);
    expect(text).toContain(`=== notes (done) ===\n${NOTES}\n\n`);
    expect(text).toContain('Changes since 0.1:');
    expect(text).not.toContain('- plans run as child agents');
    expect(text).not.toContain('And a second line.');
    // A branch groups leaves; it is never printed as one.
    expect(text).not.toMatch(/drafts/);
  });

  it.each<[string, string, Partial<Record<SubtaskStatus, number>>, string]>([
    [
      'a plan whose leaves have no deps ends in all of them',
      `[[subtask]]\nid = "a"\ninstruction = "A"\nstatus = "done"\nresult = "A1\\nA2"\n\n[[subtask]]\nid = "b"\ninstruction = "B"\nstatus = "done"\nresult = "B1\\nB2"\n`,
      { done: 2 },
      '=== a (done) ===\nA1\nA2\n\n=== b (done) ===\nB1\nB2\n\nplan: 2 done',
    ],
    [
      'a final leaf that never produced a result says so',
      `[[subtask]]\nid = "a"\ninstruction = "A"\nstatus = "done"\nresult = "A1\\nA2"\n\n[[subtask]]\nid = "b"\ninstruction = "B"\ndeps = ["a"]\nstatus = "cancelled"\n`,
      { done: 1, cancelled: 1 },
      'done      a  A1\n\n=== b (cancelled) ===\n(no result)\n\nplan: 1 done, 1 cancelled',
    ],
  ])('%s', (_name, text, summary, expected) => {
    expect(planSummaryText(reportOf(text, summary))).toContain(expected);
  });

  it('ends with the merge when the leaves were merged', () => {
    const merge: MergeReport = {
      branch: 'arbor/plan-run_1',
      commit: '0123456789abcdef0123',
      merged: ['collect', 'notes'],
      conflicts: [{ leaf: 'lint', commit: 'fedcba9876543210fedc', files: ['notes.md'] }],
    };
    expect(planSummaryText(reportOf(RUN_LOG, { done: 4, failed: 1 }, merge))).toMatch(
      /\nplan: 4 done, 1 failed; run-log \/work\/plan\.run\.toml\nmerged 2 leaves into arbor\/plan-run_1 \(0123456789ab\); 1 conflicted\n$/,
    );
  });
});

describe('planReport (--json)', () => {
  it('keeps every leaf’s whole result, final or not', () => {
    const json = planReport(REPORT);
    expect(json.leaves.map((leaf) => [leaf.id, leaf.status, leaf.result])).toEqual([
      ['collect', 'done', COLLECT],
      ['features', 'done', 'Features: plans run leaf by leaf.\nAnd a second line.'],
      ['fixes', 'done', 'Fixes: resume is fixed.'],
      ['notes', 'done', `${NOTES}\n`],
      ['lint', 'failed', 'exhausted_steps: ran out of steps\npartial result: two warnings'],
    ]);
    expect(Object.keys(json)).toEqual(['run_id', 'run_log', 'summary', 'usage', 'leaves']);
  });
});
