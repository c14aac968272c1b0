import { z } from 'zod';

const EnvRef = z
  .string()
  .regex(
    /^env:[A-Za-z_][A-Za-z0-9_]*$/,
    'expected `env:NAME`; put the token in the environment, not in the file',
  );

const Count = z.number().int().positive();

export const PrincipalSchema = z.strictObject({
  name: z.string().min(1).max(64).describe('Who this is, as tasks and logs name them.'),
  role: z
    .enum(['operator', 'user'])
    .describe('`operator` may do everything; `user` may create tasks and see and cancel its own.'),
  token: EnvRef.describe('The bearer token, read from the environment: `env:NAME`.'),
  max_runs: Count.optional().describe('Runs this principal may have going at once.'),
  tokens_per_day: Count.optional().describe(
    'Tokens the runs this principal started in the last 24 hours may have used before it may start another.',
  ),
});

export const SkillSchema = z.strictObject({
  id: z.string().min(1),
  name: z.string().min(1),
  description: z.string().min(1),
  tags: z.array(z.string()).optional(),
  examples: z.array(z.string()).optional(),
});

/** `[serve]`: what `arbor serve` says of itself, who may use it, and how much. */
export const ServeTableSchema = z
  .strictObject({
    name: z.string().min(1).optional().describe("The agent card's name (default `arbor`)."),
    description: z.string().min(1).optional().describe("The agent card's description."),
    skill: z
      .array(SkillSchema)
      .optional()
      .describe('`[[serve.skill]]`: skills the agent card lists.'),
    principal: z
      .array(PrincipalSchema)
      .optional()
      .describe('`[[serve.principal]]`: who may call, with a bearer token each.'),
    max_runs: Count.optional().describe(
      'Runs going at once; past it `/readyz` says 503 and new tasks are refused (default 16).',
    ),
    public_metrics: z.boolean().optional().describe('Serve `/metrics` without a token.'),
    allowed_hosts: z
      .array(z.string().min(1))
      .optional()
      .describe(
        '`Host` header values accepted besides the listen address (a name behind a proxy).',
      ),
    allowed_origins: z
      .array(z.url())
      .optional()
      .describe('Browser origins that may call (`Origin` header); none by default.'),
  })
  .describe('`arbor serve`: the agent card, principals and limits.');
export type ServeTable = z.infer<typeof ServeTableSchema>;
export type PrincipalEntry = z.infer<typeof PrincipalSchema>;
