import { stringify } from 'smol-toml';
import type { Scope } from '../protocol/index.js';
import type { CaveatPolicy } from '../authority/index.js';
import type { Plan } from './plan.js';
import type { ArtifactRef, Subtask } from './subtask.js';

/**
 * Writes a plan as canonical TOML: `goal` and `aggregation` first, then one `[[subtask]]` table per
 * subtask with its fields in the seed's order, scalars before the `artifact_ref` and
 * `caveat_policy` sub-tables (TOML gives a sub-table to the most recent `[[subtask]]`, so a scalar
 * after one would land in the wrong place). Values equal to their default are left out, so an
 * authored plan written back stays as short as it was written; `parsePlanToml` fills them in
 * again, and `parsePlanToml(stringifyPlan(p))` equals `p`.
 */
export function stringifyPlan(plan: Plan): string {
  const document: Record<string, unknown> = {};
  if (plan.goal !== undefined) document.goal = plan.goal;
  if (plan.aggregation !== 'concat') document.aggregation = plan.aggregation;
  if (plan.run !== undefined) document.run = plan.run;
  if (plan.subtask.length > 0) document.subtask = plan.subtask.map(subtaskTable);
  return Object.keys(document).length === 0 ? '' : stringify(document);
}

function subtaskTable(subtask: Subtask): Record<string, unknown> {
  const table: Record<string, unknown> = { id: subtask.id, instruction: subtask.instruction };
  if (subtask.deps.length > 0) table.deps = subtask.deps;
  if (subtask.parallel_ok) table.parallel_ok = true;
  if (subtask.context.length > 0) table.context = subtask.context;
  if (subtask.verify !== undefined) table.verify = subtask.verify;
  if (subtask.status !== 'pending') table.status = subtask.status;
  if (subtask.result !== undefined) table.result = subtask.result;
  if (subtask.refused_calls !== undefined) table.refused_calls = subtask.refused_calls;
  if (subtask.parent !== undefined) table.parent = subtask.parent;
  if (subtask.kind !== 'task') table.kind = subtask.kind;
  if (subtask.conversation_id !== undefined) table.conversation_id = subtask.conversation_id;
  if (subtask.artifact_ref !== undefined) table.artifact_ref = artifactTable(subtask.artifact_ref);
  const policy = policyTable(subtask.caveat_policy);
  if (Object.keys(policy).length > 0) table.caveat_policy = policy;
  return table;
}

function artifactTable(ref: ArtifactRef): Record<string, unknown> {
  const table: Record<string, unknown> = {};
  if (ref.branch !== undefined) table.branch = ref.branch;
  if (ref.commit !== undefined) table.commit = ref.commit;
  if (ref.pr !== undefined) table.pr = ref.pr;
  if (ref.issue !== undefined) table.issue = ref.issue;
  return table;
}

/** Only the axes the author wrote: an omitted axis denies, and must stay omitted. */
function policyTable(policy: CaveatPolicy): Record<string, unknown> {
  const table: Record<string, unknown> = {};
  for (const axis of ['fs_read', 'fs_write', 'exec', 'net'] as const) {
    const scope = policy[axis];
    if (scope !== undefined) table[axis] = scopeValue(scope);
  }
  if (policy.max_calls !== undefined) table.max_calls = policy.max_calls;
  return table;
}

/** The human spelling: an empty list reads as `"none"`. */
function scopeValue(scope: Scope): string | string[] {
  return scope !== 'all' && scope.length === 0 ? 'none' : scope;
}
