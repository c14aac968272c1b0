import { z } from 'zod';
import { CountSchema } from './primitives.js';

/**
 * One axis of authority: everything (`"all"`) or exactly the listed items. `"none"` is accepted
 * on input as a spelling of the empty list.
 */
export const ScopeSchema = z.union(
  [z.literal('all'), z.literal('none').transform((): string[] => []), z.array(z.string())],
  { error: 'expected "all", "none" or a list of strings' },
);
export type Scope = z.infer<typeof ScopeSchema>;

/** A ceiling on tool calls: `"unlimited"` or at most n. */
export const CountBoundSchema = z.union([z.literal('unlimited'), CountSchema], {
  error: 'expected "unlimited" or a non-negative integer',
});
export type CountBound = z.infer<typeof CountBoundSchema>;

/**
 * The authority a node holds: paths it may read and write, commands it may run (exact match),
 * hosts it may reach, and how many tool calls it may make. A child gets the meet of its parent's
 * caveats and what it asked for, never more. An axis omitted here is unrestricted, so a payload
 * without caveats means "no further narrowing"; plan subtasks use the opposite default.
 */
export const CaveatsSchema = z.object({
  fs_read: ScopeSchema.default('all'),
  fs_write: ScopeSchema.default('all'),
  exec: ScopeSchema.default('all'),
  net: ScopeSchema.default('all'),
  max_calls: CountBoundSchema.default('unlimited'),
});
export type Caveats = z.infer<typeof CaveatsSchema>;
