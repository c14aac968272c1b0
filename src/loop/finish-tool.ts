import { z } from 'zod';
import { formatIssues, type Finish, type ToolDef } from '../protocol/index.js';

/** The name of the lifecycle tool a model calls to end its work. */
export const FINISH_TOOL_NAME = 'finish';

export const FINISH_TOOL: ToolDef = {
  name: FINISH_TOOL_NAME,
  description:
    'End your work and hand back your result. Use status "completed" when the task is done, "failed" when it cannot be done, "refused" when you will not do it; say why in reason.',
  input_schema: {
    type: 'object',
    properties: {
      result: { description: 'Your final result: text, or a JSON value.' },
      status: { type: 'string', enum: ['completed', 'failed', 'refused'] },
      reason: { type: 'string' },
    },
    required: ['result'],
  },
};

const FinishArgsSchema = z.object({
  result: z.unknown(),
  status: z.enum(['completed', 'failed', 'refused']).default('completed'),
  reason: z.string().optional(),
});

/** Reads the model's `finish` arguments; a string is an error message for the model. */
export function readFinish(args: unknown): Finish | string {
  const parsed = FinishArgsSchema.safeParse(args);
  if (!parsed.success) return `Invalid \`finish\` arguments: ${formatIssues(parsed.error.issues)}`;
  const { result, status, reason } = parsed.data;
  return { status, output: result ?? null, ...(reason === undefined ? {} : { reason }) };
}
