import { EXIT } from '../runtime/index.js';
import { existsSync } from 'node:fs';
import {
  importRun,
  parseForkPoint,
  readRunFile,
  replayDivergences,
  replayNotes,
  startReplay,
  type ReplayDivergence,
  type ReplayRequest,
  type RunFile,
} from '../replay/index.js';
import { recordedIntelOf, resolveRunSettings, type RecordedIntel } from '../config/index.js';
import { write, type CliIo } from './output.js';
import { recordedIntelligence } from './recorded-run.js';
import { RUN_OPTIONS, type RunValues } from './run-options.js';
import { GRANT_FLAGS, runSettings, type RunBegin } from './run.js';
import { parseCommandArgs, usageError } from './usage-error.js';
import { replayPlanRun } from './plan-replay.js';
import { withStore } from '../store/index.js';

export const REPLAY_HELP = `Usage: arbor replay RUN|FILE [options]

Runs a recorded run again, every model answer served from its records: no endpoint is called,
no API key is needed, nothing is spent. RUN is a run id of the store (--db); FILE is a run file
written by \`arbor runs export\` (it is imported into the store first, so a run recorded on one
machine replays on another). The replay is a new run of the store, with \`replay_of\`.

Before each model call a node's request is compared with the recorded one: its messages, system
prompt, tools and model. The first difference is a divergence: the replay says where (node path,
model call) and what differed, and stops there (exit 1) unless --continue-live is given.

Options:
  --tools recorded|live  tool results from the record (default: nothing runs, no MCP server is
                         started) or run again under the recorded grant, narrowed by the grant flags
                         (a run imported from a file: only under grant flags given now)
  --continue-live        after a divergence a node goes on live, with the intelligence given now
  --from PATH@STEP       fork: replay everything before model call STEP of node PATH (\`0.2@3\`),
                         then run live from there; a new run with \`forked_from\`
  --intel, --model, --mock-llm, --config …  the intelligence for what runs live (as \`arbor run\`);
                         a replay that never goes live needs none
  --fs-read, --fs-write, --exec, --net  narrow the recorded grant
  --db PATH              the store (default: ARBOR_DB, else .arbor/arbor.db)
  --json                 a JSON report on stdout, with the divergences
  --events tree|ndjson|none  what goes to stderr while it runs

Exit codes: as \`arbor run\`; 1 when the replay stopped at a divergence.
`;

const REPLAY_OPTIONS = {
  ...RUN_OPTIONS,
  tools: { type: 'string' },
  'continue-live': { type: 'boolean' },
  from: { type: 'string' },
} as const;

/** A replay that never goes live needs no model: its calls are answered from the record. */
const NO_MODEL: RecordedIntel = {
  model: 'replay',
  endpoints: [{ url: 'http://127.0.0.1:9/replay-calls-no-endpoint', dialect: 'openai' }],
};

/** `arbor replay RUN|FILE`: see `REPLAY_HELP`. */
export async function replayCommand(args: string[], io: CliIo): Promise<number> {
  if (args.includes('--help') || args.includes('-h')) {
    await write(io.stdout, REPLAY_HELP);
    return EXIT.ok;
  }
  const { values, positionals } = parseCommandArgs('replay', args, REPLAY_OPTIONS, true);
  const [target, ...rest] = positionals;
  if (target === undefined || rest.length > 0)
    throw usageError(
      '`arbor replay` takes one run id or run file: `arbor replay RUN|FILE [options]`.',
    );
  if (values.resume !== undefined || values.warm === true)
    throw usageError('`arbor replay` replays a recorded run: --resume and --warm do not apply.');
  const tools = values.tools ?? 'recorded';
  if (tools !== 'recorded' && tools !== 'live')
    throw usageError(`--tools expects \`recorded\` or \`live\`; got \`${tools}\`.`);
  const from = values.from === undefined ? undefined : parseForkPoint(values.from);
  const continueLive = values['continue-live'] === true;
  const goesLive = continueLive || from !== undefined;
  const givenModel =
    values.intel !== undefined || values['mock-llm'] !== undefined || values.config !== undefined;
  if (goesLive && !givenModel && (io.env.ARBOR_INTEL ?? '') === '')
    throw usageError(
      `${from === undefined ? '--continue-live' : '--from'} runs live from a point: give the intelligence it runs with (--intel URL --model NAME, --mock-llm PLAYBOOK, or --config).`,
    );
  const runValues: RunValues = values;
  // A run file is imported into the store first; a run id names a run already there.
  const file = existsSync(target) ? readRunFile(target) : undefined;
  const runId = file?.run_id ?? target;
  const grantGiven = GRANT_FLAGS.filter(([flag]) => values[flag] !== undefined);
  const recordedIntel = (dbPath: string) =>
    file === undefined ? recordedIntelligence(dbPath, runId) : recordedIntelOf(file.meta ?? {});
  const resolve = () =>
    resolveRunSettings(`replay ${runId}`, runValues, io.env, {
      // What never goes live needs no endpoint (and no credential): none is called.
      recorded: (db) => (givenModel || goesLive ? recordedIntel(db) : NO_MODEL),
    });
  if (isPlanRun(file, runId, resolve))
    return replayPlanRun({
      runId,
      file,
      target,
      request: { runId, tools, continueLive, ...(from === undefined ? {} : { from }) },
      grantAxes: grantGiven.map(([, axis]) => axis),
      resolve,
      events: values.events,
      io,
      divergenceText,
    });
  const begin: RunBegin = {
    label: `replaying run ${runId} as`,
    check: (runtime) => {
      if (file !== undefined) importRun(runtime.store, file, target);
    },
    begin: (runtime, start) => {
      // Only the axes given now narrow the recorded grant (the config's `[grant]` does not).
      const grant = start.config.grant;
      const request: ReplayRequest = {
        runId,
        tools,
        continueLive,
        ...(from === undefined ? {} : { from }),
        ...(grantGiven.length === 0
          ? {}
          : { grant: Object.fromEntries(grantGiven.map(([, axis]) => [axis, grant[axis]])) }),
      };
      return startReplay(runtime, start, request);
    },
    after: async (runtime, replayId, out) => {
      const found = replayDivergences(runtime.store, replayId);
      const notes = replayNotes(runtime.store, runId).map((note) => `arbor: note: ${note}\n`);
      await write(out.stderr, `${notes.join('')}${divergenceText(found, runId, replayId)}`);
      return found.some((d) => !d.live) ? EXIT.internal : undefined;
    },
  };
  return runSettings(resolve, runValues, io, io.env, undefined, begin);
}

/** Whether the run to replay is a plan run (its file says, or the store). */
function isPlanRun(
  file: RunFile | undefined,
  runId: string,
  resolve: () => { dbPath: string },
): boolean {
  if (file !== undefined) return file.meta?.plan !== undefined;
  const { dbPath } = resolve();
  return (
    existsSync(dbPath) && withStore(dbPath, (store) => store.getRun(runId)?.meta.plan !== undefined)
  );
}

/** The divergences of a replay as a person reads them, or that there were none. */
function divergenceText(found: readonly ReplayDivergence[], of: string, replay: string): string {
  if (found.length === 0) return `arbor: replay ${replay} of ${of}: no divergence\n`;
  const lines = found.map((d) => {
    const head = `arbor: ${d.what === 'fork' ? 'forked' : 'diverged'} at node ${d.path}, model call ${d.call}${d.what === 'fork' ? '' : ` (${d.what})`}${d.live ? ', going on live' : ', stopped'}`;
    const side = (mark: string, text: string | null) =>
      text === null ? [] : text.split('\n').map((line) => `  ${mark} ${line}`);
    return [head, ...side('-', d.recorded), ...side('+', d.replayed)].join('\n');
  });
  return `${lines.join('\n')}\n`;
}
