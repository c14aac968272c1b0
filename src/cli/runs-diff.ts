import { diffRuns, readRecordedRun, type NodeSide, type RunDiff } from '../replay/index.js';
import { write, type CliIo } from './output.js';
import { mustGetRun, inStore } from './runs-store.js';
import { oneLine, table, usageText } from './runs-view.js';
import { parseCommandArgs, usageError } from './usage-error.js';

/**
 * `arbor runs diff RUN_A RUN_B`: where two runs of a store first went apart, then their nodes and
 * outcomes side by side (`--json`: the `RunDiff` shape, docs/replay.md).
 */
export async function runsDiff(args: string[], io: CliIo): Promise<number> {
  const { values, positionals } = parseCommandArgs(
    'runs diff',
    args,
    { db: { type: 'string' }, json: { type: 'boolean' } },
    true,
  );
  const [runA, runB, ...extra] = positionals;
  if (runA === undefined || runB === undefined || extra.length > 0)
    throw usageError(
      `Expected \`arbor runs diff RUN_A RUN_B\`: two run ids (\`arbor runs list\` shows them); ${
        runA === undefined
          ? 'both are missing'
          : runB === undefined
            ? 'RUN_B is missing'
            : `got ${positionals.length}`
      }.`,
    );
  return inStore(values.db, io, async (store) => {
    const read = (runId: string) => {
      mustGetRun(store, runId);
      const recorded = readRecordedRun(store, runId);
      if (recorded === undefined) throw new Error(`run ${runId} vanished while it was read`);
      return recorded;
    };
    const diff = diffRuns(read(runA), read(runB));
    await write(
      io.stdout,
      values.json === true ? `${JSON.stringify(diff, null, 2)}\n` : diffText(diff),
    );
  });
}

/** The diff as a person reads it: the divergence, the nodes side by side, the outcomes. */
function diffText(diff: RunDiff): string {
  const { a, b } = diff.runs;
  const head = `a: ${a.run_id}  ${a.status}  ${oneLine(a.instruction, 80)}\nb: ${b.run_id}  ${b.status}  ${oneLine(b.instruction, 80)}\n\n`;
  const found = diff.first_divergence;
  const divergence =
    found === null
      ? 'no divergence: the same nodes, the same transcripts, the same outcomes\n'
      : [
          `first divergence: node ${found.path}${found.step === null ? '' : `, step ${found.step}`} (${found.what})`,
          ...marked('-', found.a),
          ...marked('+', found.b),
        ].join('\n') + '\n';
  const side = (node: NodeSide | null): string[] =>
    node === null
      ? ['-', '', '', '']
      : [node.status, String(node.steps), node.tools.join(',') || '-', usageText(node.usage)];
  const nodes = table(
    ['PATH', 'A STATUS', 'STEPS', 'TOOLS', 'USAGE', 'B STATUS', 'STEPS', 'TOOLS', 'USAGE'],
    diff.nodes.map((pair) => [pair.path, ...side(pair.a), ...side(pair.b)]),
  );
  const outcome = (name: string, run: RunDiff['runs']['a']): string =>
    `${name}: ${run.status}, ${run.nodes} node(s), ${run.steps} step(s), ${usageText(run)}${
      run.reason === undefined ? '' : `, ${oneLine(run.reason, 120)}`
    }\n   ${run.result === null ? '(no result)' : oneLine(run.result, 200)}`;
  return `${head}${divergence}\n${nodes}\n${outcome('a', a)}\n${outcome('b', b)}\n`;
}

function marked(sign: '-' | '+', text: string | null): string[] {
  return (text ?? '(nothing)').split('\n').map((line) => `  ${sign} ${line}`);
}
