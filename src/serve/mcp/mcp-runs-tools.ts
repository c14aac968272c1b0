import type { CallToolResult } from '@modelcontextprotocol/sdk/types.js';
import type { Arbor } from '../../api/arbor.js';

/** `runs.list`: runs newest first, one line each, and the same as structured content. */
export function runsList(
  arbor: Arbor,
  args: { status?: string | undefined; limit?: number | undefined },
): CallToolResult {
  const runs = arbor.runs
    .list({
      ...(args.status === undefined ? {} : { status: args.status }),
      limit: args.limit ?? 20,
    })
    .map((run) => ({
      run_id: run.id,
      status: run.status,
      instruction: run.instruction,
      created_at: new Date(run.createdAt).toISOString(),
      ...(run.endedAt === undefined ? {} : { ended_at: new Date(run.endedAt).toISOString() }),
    }));
  const text =
    runs.length === 0
      ? 'No runs.'
      : runs
          .map(
            (run) => `${run.run_id}  ${run.status}  ${run.created_at}  ${oneLine(run.instruction)}`,
          )
          .join('\n');
  return { content: [{ type: 'text', text }], structuredContent: { runs } };
}

/** `runs.show`: one run, its nodes, and the root's answer. */
export function runsShow(arbor: Arbor, runId: string): CallToolResult {
  const run = arbor.runs.get(runId);
  if (run === undefined)
    return {
      content: [{ type: 'text', text: `No run \`${runId}\` in this store (see \`runs.list\`).` }],
      isError: true,
    };
  const nodes = run.nodes.map((node) => ({
    path: node.path,
    status: node.status,
    instruction: node.instruction,
    usage: node.subtreeUsage ?? node.usage,
    ...(node.outcome === undefined ? {} : { outcome: node.outcome.status }),
    ...(node.error === undefined ? {} : { error: node.error }),
  }));
  const root = run.nodes.find((node) => node.parentId === undefined);
  const answer = root?.outcome?.result;
  const shown = {
    run_id: run.id,
    status: run.status,
    instruction: run.instruction,
    created_at: new Date(run.createdAt).toISOString(),
    ...(run.endedAt === undefined ? {} : { ended_at: new Date(run.endedAt).toISOString() }),
    ...(answer === undefined || answer === null ? {} : { answer }),
    nodes,
  };
  const lines = [
    `run ${run.id} ${run.status}: ${oneLine(run.instruction)}`,
    ...nodes.map(
      (node) =>
        `  ${node.path} ${node.status} · ${node.usage.input_tokens + node.usage.output_tokens} tokens · ${oneLine(node.instruction)}`,
    ),
    ...(answer === undefined || answer === null
      ? []
      : [`answer: ${typeof answer === 'string' ? answer : JSON.stringify(answer)}`]),
  ];
  return { content: [{ type: 'text', text: lines.join('\n') }], structuredContent: shown };
}

function oneLine(text: string): string {
  const line = text.replace(/\s+/g, ' ').trim();
  return line.length > 100 ? `${line.slice(0, 99)}…` : line;
}
