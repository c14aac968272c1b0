import { z } from 'zod';
import { BudgetWindowSchema } from '../supervisor/budget/index.js';

/** `[budget]`: the tree's money ceiling, how excess asks are met, providers' limits, rate windows. */
export const BudgetTableSchema = z
  .strictObject({
    usd: z.number().positive().optional().describe("The tree's money ceiling, in US dollars."),
    on_excess: z
      .enum(['clamp', 'refuse'])
      .optional()
      .describe('A child asking more than its caller has left gets what is left, or nothing.'),
    provider_limits: z
      .enum(['pace', 'ignore'])
      .optional()
      .describe(
        "Calls wait for the providers' rate limits as their responses report them (`pace`, the default), or go regardless (`ignore`).",
      ),
    window: z
      .array(BudgetWindowSchema)
      .optional()
      .describe('`[[budget.window]]`: tokens and requests per minute, hour or day.'),
  })
  .optional()
  .describe("The tree's money ceiling, how excess asks are met, and rate windows.");
