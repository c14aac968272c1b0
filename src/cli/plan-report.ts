import { leaves, type MergeReport, type Plan, type ScheduleSummary } from '../plan/index.js';
import type { Usage } from '../protocol/index.js';

export interface PlanRunReport {
  runId: string;
  logPath: string;
  plan: Plan;
  summary: ScheduleSummary;
  merge: MergeReport | undefined;
  /** The plan's usage, all leaves and their sub-agents. */
  usage: Usage;
  /** The node that ran each leaf in this run, with its subtree's usage. */
  leafNodes: Map<string, { node_id: string; usage: Usage }>;
}

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
      ...report.leafNodes.get(leaf.id),
    })),
    ...(report.merge === undefined ? {} : { merge: report.merge }),
  };
}

const FIRST_LINE_CHARS = 100;

/** One line per leaf (status, id, the first line of its result), then the totals. */
export function planSummaryText(report: PlanRunReport): string {
  const all = leaves(report.plan);
  const width = Math.max(...all.map((leaf) => leaf.id.length));
  const lines = all.map((leaf) => {
    const first = (leaf.result ?? '').split('\n')[0] ?? '';
    const shown = first.length > FIRST_LINE_CHARS ? `${first.slice(0, FIRST_LINE_CHARS)}…` : first;
    return `${leaf.status.padEnd(9)} ${leaf.id.padEnd(width)}${shown === '' ? '' : `  ${shown}`}`.trimEnd();
  });
  const counts = Object.entries(report.summary)
    .filter(([, n]) => n > 0)
    .map(([status, n]) => `${n} ${status}`)
    .join(', ');
  lines.push(`plan: ${counts}; run-log ${report.logPath}`);
  const { merge } = report;
  if (merge !== undefined) {
    lines.push(
      `merged ${merge.merged.length} leaves into ${merge.branch} (${merge.commit.slice(0, 12)})` +
        (merge.conflicts.length === 0 ? '' : `; ${merge.conflicts.length} conflicted`),
    );
  }
  return `${lines.join('\n')}\n`;
}
