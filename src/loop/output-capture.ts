import type { JsonObject } from '../protocol/index.js';
import type { Tool } from '../tools/index.js';

/** The tool a model calls to hand back a structured result. */
export const SUBMIT_TOOL_NAME = 'output.submit';

/** How many times a model that answers in prose is reminded to submit, before the run fails. */
export const SUBMIT_REMINDERS = 2;

/**
 * Structured output through a capture tool: the result's JSON Schema becomes the tool's argument
 * schema, so the registry validates a submission like any tool call and a bad one comes back as an
 * error the model can fix. The first valid submission is the result; the turn ends after its round.
 * A schema that is not an object is wrapped as `{ value: <schema> }`.
 */
export class OutputCapture {
  readonly tool: Tool;
  #committed = false;
  #value: unknown;

  constructor(schema: JsonObject) {
    const wrapped = schema.type !== 'object';
    this.tool = {
      def: {
        name: SUBMIT_TOOL_NAME,
        description:
          'Submit your final result. Calling this is your answer: its arguments must match the required result schema.',
        input_schema: wrapped
          ? {
              type: 'object',
              properties: { value: schema },
              required: ['value'],
              additionalProperties: false,
            }
          : schema,
      },
      run: (args) => {
        if (!this.#committed) {
          this.#committed = true;
          this.#value = wrapped ? args.value : args;
        }
        return Promise.resolve({ content: 'Result accepted.', isError: false });
      },
    };
  }

  get committed(): boolean {
    return this.#committed;
  }

  get value(): unknown {
    return this.#value;
  }
}
