import { readdir } from 'node:fs/promises';
import {
  Agent,
  OpenAIChatCompletionsModel,
  Runner,
  setOpenAIAPI,
  setTracingDisabled,
  tool,
  withTrace,
} from '@openai/agents';
import OpenAI from 'openai';
import { z } from 'zod';

/**
 * The delegation benchmark with the OpenAI Agents SDK, agents as tools: the delegating root's
 * only tool is the sub-agent, through `agent.asTool()`; the no-op root's is a function tool that
 * lists an empty directory. Chat completions (not the Responses API), tracing off,
 * no retries (the client's `maxRetries: 0`; the SDK's own model retries are opt-in and not set).
 */
export function openAiAgentsScenario({ url, n }) {
  setTracingDisabled(true);
  setOpenAIAPI('chat_completions');
  const client = new OpenAI({ baseURL: url, apiKey: 'bench', maxRetries: 0 });
  const model = new OpenAIChatCompletionsModel(client, 'gpt-4o-mini');
  const worker = new Agent({
    name: 'worker',
    instructions: 'You do one sub-task and answer briefly.',
    model,
  });
  const delegator = new Agent({
    name: 'delegator',
    instructions: 'You coordinate sub-agents: delegate each sub-task.',
    model,
    tools: [
      worker.asTool({
        toolName: 'run_subagent',
        toolDescription: 'Delegate a task to a sub-agent.',
      }),
    ],
  });
  const listDir = tool({
    name: 'list_dir',
    description: 'List a directory.',
    parameters: z.object({ path: z.string() }),
    execute: async ({ path }) => `${path}: ${(await readdir(path)).length} entries`,
  });
  const noop = new Agent({
    name: 'noop',
    instructions: 'You work alone, with your tools.',
    model,
    tools: [listDir],
  });
  const runner = new Runner({ tracingDisabled: true });
  const maxTurns = 2 * n + 5;
  const runOnce = async (agent, input) => {
    const result = await runner.run(agent, input, { maxTurns });
    if (result.finalOutput !== 'All done.')
      throw new Error(
        `openai-agents: expected "All done.", got ${JSON.stringify(result.finalOutput)}`,
      );
  };
  return {
    delegate: (input) => runOnce(delegator, input),
    noop: (input) => runOnce(noop, input),
    // A model call made directly through the SDK's model, as a sub-agent's turn makes it (the
    // model wants a trace context, as inside a run; with tracing off it records nothing).
    direct: (system, task) =>
      withTrace('direct', async () => {
        const response = await model.getResponse({
          systemInstructions: system,
          input: task,
          modelSettings: {},
          tools: [],
          outputType: 'text',
          handoffs: [],
          tracing: false,
        });
        if (response.output.length === 0) throw new Error('openai-agents: empty direct answer');
      }),
  };
}
