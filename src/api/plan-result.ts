import { finalLeaves, leaves } from '../plan/index.js';
import {
  EXIT,
  exitCodeFor,
  type PlanEnd,
  type StartedPlan,
  type StartedRun,
} from '../runtime/index.js';
import { resultOf, type RunControl, type RunResult } from './run-handle.js';

/** What a handle controls and awaits for a plan run: its supervisor and plan node, its result. */
export function planRun(
  runId: string,
  started: StartedPlan,
): { control: RunControl; result: Promise<RunResult> } {
  const root = started.supervisor.tree.nodes()[0];
  return {
    control: {
      supervisor: started.supervisor,
      rootId: root?.id ?? '',
      stop: (reason) => {
        started.stop(reason);
      },
    },
    result: started.done.then((end) => planResult(runId, end)),
  };
}

/**
 * A plan run's result: its text is the results of its final leaves (those nothing depends on);
 * `structured` holds the summary and every leaf's status and result.
 */
function planResult(runId: string, end: PlanEnd): RunResult {
  const all = leaves(end.plan);
  const finals = finalLeaves(end.plan);
  const text = finals
    .map((leaf) =>
      finals.length === 1 ? (leaf.result ?? '') : `## ${leaf.id}\n${leaf.result ?? ''}`,
    )
    .join('\n\n');
  const exitCode =
    end.status === 'completed'
      ? EXIT.ok
      : end.status === 'cancelled'
        ? EXIT.interrupted
        : EXIT.partial;
  return {
    ...resultOf(
      runId,
      {
        status: end.status,
        result: text,
        ...(end.status === 'completed' ? {} : { reason: planReason(end) }),
      },
      { input_tokens: 0, output_tokens: 0 },
      end.usage,
      exitCode,
    ),
    structured: {
      summary: end.summary,
      runLog: end.logPath,
      leaves: all.map((leaf) => ({
        id: leaf.id,
        status: leaf.status,
        ...(leaf.result === undefined ? {} : { result: leaf.result }),
      })),
    },
  };
}

function planReason(end: PlanEnd): string {
  const conflicts = end.merge?.conflicts.length ?? 0;
  if (conflicts > 0) return `${conflicts} merge conflict(s)`;
  const { summary } = end;
  return `plan ${end.status}: ${JSON.stringify(summary)}`;
}

/** What a handle controls and awaits for a root run: its supervisor and root, and its result. */
export function rootRun(
  runId: string,
  started: StartedRun,
): { control: RunControl; result: Promise<RunResult> } {
  const root = started.supervisor.tree.nodes().find((n) => n.parentId === undefined);
  return {
    control: { supervisor: started.supervisor, rootId: root?.id ?? '' },
    result: started.done.then(({ node, end }) =>
      resultOf(
        runId,
        end.outcome,
        node.usage,
        started.supervisor.subtreeUsage(node.id),
        exitCodeFor(end.outcome.status, end.error?.code),
      ),
    ),
  };
}
