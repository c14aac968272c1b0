import { readdir } from 'node:fs/promises';
import { HumanMessage, SystemMessage } from '@langchain/core/messages';
import { tool } from '@langchain/core/tools';
import { createReactAgent } from '@langchain/langgraph/prebuilt';
import { ChatOpenAI } from '@langchain/openai';
import { z } from 'zod';

/**
 * The delegation benchmark with LangGraph.js: a supervisor graph (a ReAct agent: a model node and
 * a tools node) whose only tool invokes a sub-agent graph per delegation; the no-op root's only
 * tool lists an empty directory. Chat completions through
 * `ChatOpenAI`, unstreamed, no retries, no checkpointer, no LangSmith tracing.
 */
export function langGraphScenario({ url, n }) {
  const llm = new ChatOpenAI({
    model: 'gpt-4o-mini',
    apiKey: 'bench',
    configuration: { baseURL: url },
    maxRetries: 0,
    streaming: false,
    useResponsesApi: false,
  });
  const worker = createReactAgent({
    llm,
    tools: [],
    prompt: 'You do one sub-task and answer briefly.',
  });
  const runSubagent = tool(
    async ({ instruction }) => {
      const state = await worker.invoke({ messages: [new HumanMessage(instruction)] });
      return state.messages.at(-1).content;
    },
    {
      name: 'run_subagent',
      description: 'Delegate a task to a sub-agent.',
      schema: z.object({ instruction: z.string() }),
    },
  );
  const listDir = tool(async ({ path }) => `${path}: ${(await readdir(path)).length} entries`, {
    name: 'list_dir',
    description: 'List a directory.',
    schema: z.object({ path: z.string() }),
  });
  const delegator = createReactAgent({
    llm,
    tools: [runSubagent],
    prompt: 'You coordinate sub-agents: delegate each sub-task.',
  });
  const noop = createReactAgent({
    llm,
    tools: [listDir],
    prompt: 'You work alone, with your tools.',
  });
  // Each model call and each tool round is a super-step; the default limit (25) is too low.
  const config = { recursionLimit: 4 * n + 10 };
  const runOnce = async (graph, input) => {
    const state = await graph.invoke({ messages: [new HumanMessage(input)] }, config);
    const answer = state.messages.at(-1).content;
    if (answer !== 'All done.')
      throw new Error(`langgraph: expected "All done.", got ${JSON.stringify(answer)}`);
  };
  return {
    delegate: (input) => runOnce(delegator, input),
    noop: (input) => runOnce(noop, input),
    // A model call made directly through the chat model, as a sub-agent's model node makes it.
    direct: async (system, task) => {
      const answer = await llm.invoke([new SystemMessage(system), new HumanMessage(task)]);
      if (answer.content !== 'Done.') throw new Error('langgraph: unexpected direct answer');
    },
  };
}
