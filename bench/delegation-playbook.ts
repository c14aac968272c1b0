import type { PlaybookInput, StepInput } from '../src/testing/index.js';

/**
 * The fake LLM's script for the delegation benchmark, for every framework at once. Each root
 * is told apart by a phrase of its instruction; sub-agents by theirs, so their script comes
 * first (arbor puts a summary of the parent's instruction in a child's system prompt).
 *
 * Two shapes of root, the same conversation of N + 1 model calls and N tool results:
 * - **delegate**: each of the first N calls asks for one sub-agent, which makes one model call
 *   and answers at once;
 * - **noop**: each of the first N calls asks for a no-op tool that lists an empty directory (a
 *   different one each time: arbor ends a turn that repeats a call).
 */
const SUBTASK = 'BENCH-SUBTASK';
const DELEGATE = 'BENCH-ROOT-DELEGATE';
const NOOP = 'BENCH-ROOT-NOOP';
/** A sub-agent's task, and the user message of every direct model call. */
export const subtask = (k: number | string): string => `${SUBTASK} ${k}: answer at once.`;
/** The system prompt of a direct model call (a sub-agent's own is its framework's). */
export const DIRECT_SYSTEM = 'You do one sub-task and answer briefly.';

export type Shape = 'delegate' | 'noop';

/** How each framework spells "delegate" and "no-op" (tool names as the playbook writes them). */
const FRAMEWORK_TOOLS = {
  'arbor-spawn': { delegate: 'subagent.run', noop: 'fs.list' },
  'arbor-process': { delegate: 'subagent.run', noop: 'fs.list' },
  'openai-agents': { delegate: 'run_subagent', noop: 'list_dir' },
  langgraph: { delegate: 'run_subagent', noop: 'list_dir' },
} as const;
export type Framework = keyof typeof FRAMEWORK_TOOLS;

/** The phrase a root's instruction carries, so the server knows which script it runs. */
export function rootPhrase(shape: Shape, framework: Framework): string {
  return `${shape === 'delegate' ? DELEGATE : NOOP} framework=${framework}`;
}

const USAGE = { input_tokens: 10, output_tokens: 1 };

function delegateArgs(framework: Framework, k: number): Record<string, string> {
  const task = subtask(k);
  switch (framework) {
    case 'arbor-spawn':
      return { instruction: task, provider: 'spawn' };
    case 'arbor-process':
      return { instruction: task, provider: 'process' };
    case 'openai-agents':
      // `agent.asTool()` takes one string argument, `input`.
      return { input: task };
    case 'langgraph':
      return { instruction: task };
  }
}

function rootScript(shape: Shape, framework: Framework, n: number, noopDirs: readonly string[]) {
  const tools = FRAMEWORK_TOOLS[framework];
  const steps: StepInput[] = Array.from({ length: n }, (_, k) => ({
    tool_calls: [
      shape === 'delegate'
        ? { id: `call_${k}`, name: tools.delegate, args: delegateArgs(framework, k) }
        : { id: `call_${k}`, name: tools.noop, args: { path: noopDirs[k]! } },
    ],
    usage: USAGE,
  }));
  steps.push({ text: 'All done.', usage: USAGE });
  return {
    name: rootPhrase(shape, framework),
    match: { contains: rootPhrase(shape, framework) },
    steps,
  };
}

/** `noopDirs` must hold at least N empty directories. */
export function delegationPlaybook(n: number, noopDirs: readonly string[]): PlaybookInput {
  if (noopDirs.length < n) throw new Error(`need ${n} no-op directories, got ${noopDirs.length}`);
  const frameworks = Object.keys(FRAMEWORK_TOOLS) as Framework[];
  return {
    scripts: [
      { name: 'sub-agent', match: { contains: SUBTASK }, steps: [{ text: 'Done.', usage: USAGE }] },
      ...frameworks.flatMap((framework) => [
        rootScript('delegate', framework, n, noopDirs),
        rootScript('noop', framework, n, noopDirs),
      ]),
    ],
  };
}
