import { z } from 'zod';
import { CountBoundSchema, ScopeSchema, type Caveats } from '../protocol/index.js';

/**
 * The authority a subtask asks for, in the words a person writes: each of `fs_read`, `fs_write`,
 * `exec` and `net` is `"all"`, `"none"` or a list; `max_calls` is `"unlimited"` or n.
 *
 * Default-deny, the opposite of a payload's `Caveats`: an axis left out is denied, and a subtask
 * with no policy at all asks for nothing. A plan is often written by a model, and it must not gain
 * authority by leaving a field out. What the subtask asks for is then met with what its parent
 * grants, so even `"all"` only means "everything the parent has".
 */
export const CaveatPolicySchema = z.strictObject({
  /** Paths the leaf may read: a file, or a directory and everything under it. */
  fs_read: ScopeSchema.optional(),
  /** Paths the leaf may write, further fenced by its write lane (`context`). */
  fs_write: ScopeSchema.optional(),
  /** Commands the leaf may run, each matched as the exact string. */
  exec: ScopeSchema.optional(),
  /** Hosts the leaf may reach, each matched exactly. */
  net: ScopeSchema.optional(),
  /** Tool calls the leaf may make. Omitted means none. */
  max_calls: CountBoundSchema.optional(),
});
export type CaveatPolicy = z.infer<typeof CaveatPolicySchema>;

/** Lowers a policy to lattice form: every omitted axis (or an omitted policy) is denied. */
export function policyToCaveats(policy: CaveatPolicy | undefined): Caveats {
  return {
    fs_read: policy?.fs_read ?? [],
    fs_write: policy?.fs_write ?? [],
    exec: policy?.exec ?? [],
    net: policy?.net ?? [],
    max_calls: policy?.max_calls ?? 0,
  };
}
