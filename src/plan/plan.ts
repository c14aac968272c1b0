import { z } from 'zod';
import { SubtaskSchema } from './subtask.js';

/** How the results of a plan's leaves are combined into the plan's result. */
export const AGGREGATIONS = ['concat', 'lastwins', 'reduce', 'custom'] as const;
const AggregationSchema = z.enum(AGGREGATIONS);

/**
 * A plan: an optional goal and a flat list of subtasks, written as `[[subtask]]` tables. A bare
 * list with no `goal` (a fragment) is a plan too, so a slice of a plan can be handed on alone.
 * Unknown keys are errors everywhere: there is one shape, and a typo must not silently drop a
 * field such as `deps`.
 */
export const PlanSchema = z.strictObject({
  goal: z.string().optional(),
  aggregation: AggregationSchema.default('concat'),
  /**
   * In a run-log: the run that last wrote it. A resume checks the file against what that run
   * recorded in the store, so a run-log changed behind arbor's back is not trusted.
   */
  run: z.string().optional(),
  subtask: z.array(SubtaskSchema).default(() => []),
});
export type Plan = z.infer<typeof PlanSchema>;
export type PlanInput = z.input<typeof PlanSchema>;
