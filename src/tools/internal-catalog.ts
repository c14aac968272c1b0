import type { ToolDef } from '../protocol/index.js';

/**
 * Tools the supervisor serves. A child offers them to its model like any other tool, but running
 * one sends a `tool_request` up the control channel: the supervisor owns the state these tools
 * touch, and letting children change it directly would let siblings race each other.
 */
export const SLEEP_TOOL: ToolDef = {
  name: 'sleep',
  description: 'Wait for a number of milliseconds (at most 10 minutes), then continue.',
  input_schema: {
    type: 'object',
    properties: {
      ms: {
        type: 'integer',
        minimum: 0,
        maximum: 600_000,
        description: 'How long to wait, in milliseconds.',
      },
    },
    required: ['ms'],
    additionalProperties: false,
  },
};

/** Every internal tool, by name. */
export const INTERNAL_TOOLS: readonly ToolDef[] = [SLEEP_TOOL];

export function isInternalTool(name: string): boolean {
  return INTERNAL_TOOLS.some((tool) => tool.name === name);
}
