import { finalLeaves, leaves, type Subtask } from '../plan/index.js';
import type { PlanEnd } from '../runtime/index.js';

/** What a plan run reports: how it ended, as the runtime says. */
export type PlanRunReport = Omit<PlanEnd, 'status'>;

/** `--json`: the run, each leaf's status and result, the merge, and the whole tree's usage. */
export function planReport(report: PlanRunReport) {
  return {
    run_id: report.runId,
    run_log: report.logPath,
    summary: report.summary,
    usage: report.usage,
    leaves: leaves(report.plan).map((leaf) => ({
      id: leaf.id,
      status: leaf.status,
      ...(leaf.result === undefined ? {} : { result: leaf.result }),
      ...(leaf.artifact_ref === undefined ? {} : { artifact_ref: leaf.artifact_ref }),
      ...(leaf.refused_calls === undefined ? {} : { refused_calls: leaf.refused_calls }),
      ...report.leafNodes.get(leaf.id),
    })),
    ...(report.merge === undefined ? {} : { merge: report.merge }),
  };
}

const FIRST_LINE_CHARS = 100;

/**
 * The leaves no subtask depends on: where the plan's work ends up, so what a person running it
 * wants to read. A plan whose leaves have no deps at all ends in every one of them.
 */

/** A leaf on one line: its status, its id and the first line of its result. */
function leafLine(leaf: Subtask, width: number): string {
  const first = (leaf.result ?? '').split('\n')[0] ?? '';
  const shown = first.length > FIRST_LINE_CHARS ? `${first.slice(0, FIRST_LINE_CHARS)}…` : first;
  const refused = refusedText(leaf);
  return `${leaf.status.padEnd(9)} ${leaf.id.padEnd(width)}${refused === undefined ? '' : ` (${refused})`}${shown === '' ? '' : `  ${shown}`}`.trimEnd();
}

/** A final leaf in full: a heading with its id and status, then its whole result. */
function leafSection(leaf: Subtask): string {
  const result = leaf.result === undefined || leaf.result === '' ? '(no result)' : leaf.result;
  const refused = refusedText(leaf);
  return `=== ${leaf.id} (${leaf.status}${refused === undefined ? '' : `, ${refused}`}) ===\n${result.replace(/\n+$/, '')}`;
}

/** How many tool calls arbor refused a leaf, when any: a `done` leaf may have done nothing. */
function refusedText(leaf: Subtask): string | undefined {
  const n = leaf.refused_calls;
  return n === undefined ? undefined : `${n} tool call${n === 1 ? '' : 's'} refused`;
}
/** The totals by status, the run-log, and the merge when there was one. */
function totalsText(report: PlanRunReport): string {
  const counts = Object.entries(report.summary)
    .filter(([, n]) => n > 0)
    .map(([status, n]) => `${n} ${status}`)
    .join(', ');
  const totals = `plan: ${counts}; run-log ${report.logPath}`;
  const { merge } = report;
  if (merge === undefined) return totals;
  const conflicted = merge.conflicts.length === 0 ? '' : `; ${merge.conflicts.length} conflicted`;
  return `${totals}\nmerged ${merge.merged.length} leaves into ${merge.branch} (${merge.commit.slice(0, 12)})${conflicted}`;
}

/**
 * What `arbor plan run` prints: one line per leaf that others depend on, the whole result of each
 * final leaf under its own heading, then the totals; blank lines between the sections.
 */
export function planSummaryText(report: PlanRunReport): string {
  const all = leaves(report.plan);
  const final = new Set(finalLeaves(report.plan).map((leaf) => leaf.id));
  const inner = all.filter((leaf) => !final.has(leaf.id));
  const width = Math.max(0, ...inner.map((leaf) => leaf.id.length));
  const sections = [
    ...(inner.length === 0 ? [] : [inner.map((leaf) => leafLine(leaf, width)).join('\n')]),
    ...all.filter((leaf) => final.has(leaf.id)).map(leafSection),
    totalsText(report),
  ];
  return `${sections.join('\n\n')}\n`;
}
