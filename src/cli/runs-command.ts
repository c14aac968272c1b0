import { parseAge } from '../config/index.js';
import { ArborError, shownTranscript } from '../protocol/index.js';
import { EXIT } from '../runtime/index.js';
import { sleep } from '../supervisor/index.js';
import { nodeViews, parkedSince, summarize, wireLine } from '../dashboard/run-views.js';
import { write, type CliIo } from './output.js';
import { runFileOf } from './runs-export.js';
import { duration, oneLine, splitText, table, transcriptText, usageText } from './runs-view.js';
import { runsDiff } from './runs-diff.js';
import { inStore, mustGetRun } from './runs-store.js';
import { parseCommandArgs, usageError } from './usage-error.js';

const RUNS_HELP = `Usage: arbor runs <command> [options]

Past and present runs of a store (--db PATH, env ARBOR_DB, default .arbor/arbor.db).

  list [--status S] [--since 1d] [--limit N]   runs, newest first
  show RUN                        the tree: status, provider, duration, usage and cost of each
                                  node and its subtree, and the answer
  events RUN [--follow]           the run's events as NDJSON (the \`--events ndjson\` form);
                                  --follow waits for more until the run ends
  transcript RUN NODE_PATH        a node's conversation: messages, tool calls and results
  diff RUN_A RUN_B                where two runs first went apart (node path, step, what
                                  differed), then each node's status, tools, steps and usage,
                                  and each run's outcome, side by side
  export RUN [--with-reasoning]   the run as one versioned JSON document (format arbor.run/1):
                                  its nodes, events, transcripts, gates and model calls; with
                                  --with-reasoning also thinking models' reasoning, verbatim
                                  (unscrubbed: it must stay as the provider signed it)
  prune --older-than 30d [--dry-run]   delete runs (not running) started before then

--json prints JSON (list, show, transcript, diff) in the field names of the events and the store.
`;

const COMMON = { db: { type: 'string' }, json: { type: 'boolean' } } as const;

/** `arbor runs …`: browse a store's runs. */
export async function runsCommand(args: string[], io: CliIo): Promise<number> {
  const [sub, ...rest] = args;
  if (sub === undefined || sub === '--help' || sub === '-h') {
    await write(io.stdout, RUNS_HELP);
    return sub === undefined ? EXIT.usage : EXIT.ok;
  }
  const command = SUBCOMMANDS[sub];
  if (command === undefined)
    throw usageError(
      `Unknown subcommand \`runs ${sub}\`; expected one of: ${Object.keys(SUBCOMMANDS).join(', ')}.`,
    );
  return command(rest, io);
}

const SUBCOMMANDS: Record<string, (args: string[], io: CliIo) => Promise<number>> = {
  list: async (args, io) => {
    const { values } = parseCommandArgs('runs list', args, {
      ...COMMON,
      status: { type: 'string' },
      since: { type: 'string' },
      limit: { type: 'string' },
    });
    const since =
      values.since === undefined ? undefined : Date.now() - parseAge(values.since, '--since');
    const limit = values.limit === undefined ? 50 : countOf(values.limit, '--limit');
    return inStore(values.db, io, async (store) => {
      const runs = store
        .listRuns({
          ...(values.status === undefined ? {} : { status: values.status }),
          ...(since === undefined ? {} : { since }),
          limit,
        })
        .map((run) => summarize(run, store.listNodes(run.id)));
      if (values.json === true) return write(io.stdout, `${JSON.stringify(runs, null, 2)}\n`);
      if (runs.length === 0) return write(io.stdout, 'no runs\n');
      return write(
        io.stdout,
        table(
          ['RUN', 'STATUS', 'STARTED', 'DURATION', 'NODES', 'TOKENS', 'COST', 'INSTRUCTION'],
          runs.map((run) => [
            run.run_id,
            run.status,
            run.created_at.replace('T', ' ').slice(0, 19),
            duration(run.duration_ms),
            String(run.nodes),
            `${run.input_tokens}+${run.output_tokens}${splitText(run, true)}`,
            run.cost_usd === undefined ? '-' : `$${run.cost_usd.toFixed(4)}`,
            oneLine(run.instruction, 60),
          ]),
        ),
      );
    });
  },

  show: async (args, io) => {
    const { values, runId } = oneRun('runs show', args);
    return inStore(values.db, io, async (store) => {
      const run = mustGetRun(store, runId);
      const nodes = store.listNodes(runId);
      const views = nodeViews(
        nodes,
        parkedSince(nodes, () => store.listEvents(runId)),
      );
      const answer = views.find((node) => node.parent_id === undefined)?.result;
      if (values.json === true)
        return write(
          io.stdout,
          `${JSON.stringify({ ...summarize(run, nodes), nodes: views, ...(answer === undefined ? {} : { answer }) }, null, 2)}\n`,
        );
      const summary = summarize(run, nodes);
      const head = [
        `run ${run.id}  ${run.status}  started ${summary.created_at}  ${duration(summary.duration_ms)}`,
        `instruction: ${oneLine(run.instruction, 200)}`,
        '',
      ].join('\n');
      const rows = views.map((node) => [
        `${'  '.repeat(node.depth)}${node.path} (${node.node_id})`,
        node.parked_since === undefined
          ? node.status
          : `parked ${duration(Date.now() - Date.parse(node.parked_since))}`,
        node.provider,
        duration(node.duration_ms),
        usageText(node.usage),
        usageText(node.subtree_usage),
        oneLine(node.instruction, 50),
      ]);
      const tree = table(
        ['PATH (NODE)', 'STATUS', 'PROVIDER', 'DURATION', 'OWN', 'SUBTREE', 'INSTRUCTION'],
        rows,
      );
      const said =
        answer === undefined || answer === null
          ? '\n(no answer)\n'
          : `\nanswer:\n${typeof answer === 'string' ? answer : JSON.stringify(answer, null, 2)}\n`;
      return write(io.stdout, `${head}\n${tree}${said}`);
    });
  },

  events: async (args, io) => {
    const { values, runId } = oneRun('runs events', args, { follow: { type: 'boolean' } });
    return inStore(values.db, io, async (store) => {
      mustGetRun(store, runId);
      const paths = new Map(store.listNodes(runId).map((node) => [node.id, node.path]));
      let after = 0;
      for (;;) {
        // Read before the batch: events written as the run ends are in it, then it stops.
        const running = store.getRun(runId)?.status === 'running';
        const batch = store.listEvents(runId, { afterSeq: after });
        for (const record of batch) {
          after = record.seq;
          if (record.nodeId !== undefined && !paths.has(record.nodeId))
            for (const node of store.listNodes(runId)) paths.set(node.id, node.path);
          await write(io.stdout, `${JSON.stringify(wireLine(runId, record, paths))}\n`);
        }
        if (values.follow !== true || !running) return;
        await sleep(FOLLOW_POLL_MS);
      }
    });
  },

  transcript: async (args, io) => {
    const { values, positionals } = parseCommandArgs('runs transcript', args, COMMON, true);
    const [runId, path, ...extra] = positionals;
    if (runId === undefined || path === undefined || extra.length > 0)
      throw usageError(
        'Expected `arbor runs transcript RUN NODE_PATH` (a path such as `0.2`, or a node id such as `n2`).',
      );
    return inStore(values.db, io, async (store) => {
      mustGetRun(store, runId);
      const nodes = store.listNodes(runId);
      const node = nodes.find((n) => n.path === path || n.id === path);
      if (node === undefined)
        throw new ArborError(
          'usage',
          `Run ${runId} has no node \`${path}\` (its paths: ${nodes.map((n) => n.path).join(', ')}).`,
        );
      const messages = shownTranscript(store.listTranscript(runId, node.id));
      if (values.json === true)
        return write(
          io.stdout,
          `${JSON.stringify({ run_id: runId, node_id: node.id, path: node.path, messages }, null, 2)}\n`,
        );
      return write(io.stdout, transcriptText(messages));
    });
  },

  export: async (args, io) => {
    const { values, runId } = oneRun('runs export', args, {
      'with-reasoning': { type: 'boolean' },
    });
    const withReasoning = (values as { 'with-reasoning'?: boolean })['with-reasoning'] === true;
    return inStore(values.db, io, async (store) => {
      const file = runFileOf(store, mustGetRun(store, runId), { withReasoning });
      return write(io.stdout, `${JSON.stringify(file, null, 2)}\n`);
    });
  },

  diff: runsDiff,

  prune: async (args, io) => {
    const { values } = parseCommandArgs('runs prune', args, {
      ...COMMON,
      'older-than': { type: 'string' },
      'dry-run': { type: 'boolean' },
    });
    if (values['older-than'] === undefined)
      throw usageError('`arbor runs prune` needs --older-than DURATION (such as `30d`).');
    const before = Date.now() - parseAge(values['older-than'], '--older-than');
    return inStore(values.db, io, async (store) => {
      const ids = store.pruneRuns(before, { dryRun: values['dry-run'] === true });
      const verb = values['dry-run'] === true ? 'would delete' : 'deleted';
      if (values.json === true)
        return write(
          io.stdout,
          `${JSON.stringify({ [values['dry-run'] === true ? 'would_delete' : 'deleted']: ids })}\n`,
        );
      return write(
        io.stdout,
        `${verb} ${ids.length} run(s)${ids.length === 0 ? '' : `: ${ids.join(', ')}`}\n`,
      );
    });
  },
};

/** How often `events --follow` looks for more. */
const FOLLOW_POLL_MS = 250;

function oneRun(
  command: string,
  args: string[],
  extra: Record<string, { type: 'string' | 'boolean' }> = {},
) {
  const { values, positionals } = parseCommandArgs(command, args, { ...COMMON, ...extra }, true);
  const [runId, ...rest] = positionals;
  if (runId === undefined || rest.length > 0)
    throw usageError(
      `Expected \`arbor ${command} RUN\`: one run id (\`arbor runs list\` shows them).`,
    );
  return {
    values: values as Partial<Record<'db', string> & Record<'json' | 'follow', boolean>>,
    runId,
  };
}

function countOf(text: string, name: string): number {
  const value = Number(text);
  if (!Number.isSafeInteger(value) || value < 1)
    throw usageError(`${name}: expected a positive whole number, got \`${text}\`.`);
  return value;
}
