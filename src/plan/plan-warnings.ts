import { leaves } from './plan-tree.js';
import type { Plan } from './plan.js';

/**
 * What in a valid plan is most likely a mistake, one line each: a leaf whose `caveat_policy`
 * grants an axis but leaves out `max_calls` may make no tool call at all (an omitted `max_calls`
 * means none, like every omitted axis), so every call it makes is refused and the leaf can still
 * end `done` having done nothing.
 */
export function planWarnings(plan: Plan): string[] {
  const out: string[] = [];
  for (const leaf of leaves(plan)) {
    const policy = leaf.caveat_policy;
    if (policy.max_calls !== undefined) continue;
    const granted = (['fs_read', 'fs_write', 'exec', 'net'] as const).filter((axis) => {
      const scope = policy[axis];
      return scope === 'all' || (Array.isArray(scope) && scope.length > 0);
    });
    if (granted.length === 0) continue;
    out.push(
      `subtask \`${leaf.id}\`: caveat_policy grants ${granted.join(', ')} but no max_calls, so ` +
        'every tool call it makes will be refused (an omitted max_calls means none): set ' +
        'max_calls = "unlimited" or a number',
    );
  }
  return out;
}
