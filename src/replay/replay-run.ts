import { completeRequest, meetGrant } from '../authority/index.js';
import { ARBOR_VERSION, ArborError, type Caveats } from '../protocol/index.js';
import { modelCallsOf } from '../store/index.js';
import type { Runtime, RunStart, StartedRun } from '../runtime/index.js';
import type { RunStore } from '../supervisor/index.js';
import { StoreReplaySource, type ReplayMode } from './store-replay-source.js';

/** What a replay of a recorded run asks for (see `arbor replay`). */
export interface ReplayRequest extends ReplayMode {
  /** The recorded run, in the runtime's store. */
  runId: string;
  /**
   * Grant axes given now: they narrow the recorded grant (never widen it). A run recorded on
   * another machine (imported from a run file) runs its tools live only under a grant given here.
   */
  grant?: Partial<Caveats>;
}

/** One divergence a replay found, where it was found. */
export interface ReplayDivergence {
  /** The node's path (the recorded node's, which the replay's took). */
  path: string;
  nodeId: string;
  /** The node's model call before which it was found, from 1. */
  call: number;
  /** `system`, `tools`, `model`, `fork`, or a transcript difference (`text`, `tool_result`, …). */
  what: string;
  recorded: string | null;
  replayed: string | null;
  /** Whether the node went on live from there. */
  live: boolean;
}

/**
 * Starts a replay of a recorded run as a new run of the runtime's store: the recorded root's
 * instruction, limits and grant (narrowed by `request.grant`), every node's answers served from
 * its record. `start.meta` is kept, with `replay_of` (and `forked_from` for a fork) added.
 */
export function startReplay(
  runtime: Runtime,
  start: RunStart,
  request: ReplayRequest,
): StartedRun & { source: StoreReplaySource } {
  const source = replaySource(runtime.store, request, 'run');
  const root = source.rootRecord;
  const started = runtime.startRun(
    { ...start, replay: source, meta: replayMeta(start.meta, request) },
    {
      instruction: root.instruction,
      caveats: replayCaveats(runtime, request, root.payload.caveats),
      limits: root.payload.limits,
      warm: root.payload.warm,
    },
  );
  return { ...started, source };
}

/** A replay's run meta: `meta`, with what it replays (and forks from). */
export function replayMeta(
  meta: Record<string, unknown> | undefined,
  request: ReplayRequest,
): Record<string, unknown> {
  return {
    ...meta,
    arbor_version: ARBOR_VERSION,
    replay_of: request.runId,
    replay_tools: request.tools,
    ...(request.from === undefined
      ? {}
      : { forked_from: { run: request.runId, path: request.from.path, step: request.from.step } }),
  };
}

/**
 * The grant a replay's root holds: the recorded one, narrowed by the axes given now. A run
 * recorded on another machine runs its tools live only under a grant given now, and then holds
 * nothing on an axis not given, whatever its file claims.
 */
export function replayCaveats(
  runtime: Pick<Runtime, 'store' | 'cwd'>,
  request: ReplayRequest,
  recorded: Caveats,
): Caveats {
  const run = runtime.store.getRun(request.runId);
  const imported = typeof run?.meta.imported_from === 'string';
  if (request.tools === 'live' && imported && request.grant === undefined)
    throw new ArborError(
      'usage',
      `Run \`${request.runId}\` was recorded on another machine (${String(run.meta.imported_from)}): its tools run live only under a grant given now (--fs-read, --fs-write, --exec, --net).`,
    );
  const given =
    request.tools === 'live' && imported
      ? { fs_read: [], fs_write: [], exec: [], net: [], ...request.grant }
      : request.grant;
  return given === undefined
    ? recorded
    : meetGrant(recorded, completeRequest(given), { cwd: runtime.cwd });
}

/**
 * The records of `request.runId` to replay from, as a run or a plan run (`kind`); a usage error
 * when the store lacks the run, or it is of the other kind.
 */
export function replaySource(
  store: Pick<RunStore, 'getRun' | 'listNodes' | 'listTranscript' | 'listEvents'>,
  request: ReplayRequest,
  kind: 'run' | 'plan',
): StoreReplaySource {
  const run = store.getRun(request.runId);
  if (run === undefined)
    throw new ArborError('usage', `There is no run \`${request.runId}\` in the store to replay.`);
  if ((run.meta.plan !== undefined) !== (kind === 'plan'))
    throw new ArborError(
      'usage',
      kind === 'run'
        ? `Run \`${request.runId}\` is a plan run: replay it with \`arbor replay\`.`
        : `Run \`${request.runId}\` is not a plan run.`,
    );
  if (run.status === 'running')
    throw new ArborError(
      'usage',
      `Run \`${request.runId}\` is still running: replay it once it ended.`,
    );
  return new StoreReplaySource(store, request.runId, request);
}

/** The divergences a replay found, in the order they were found. */
export function replayDivergences(
  store: Pick<RunStore, 'listEvents' | 'listNodes'>,
  runId: string,
): ReplayDivergence[] {
  const paths = new Map(store.listNodes(runId).map((n) => [n.id, n.path]));
  return store.listEvents(runId).flatMap((event) => {
    if (event.kind !== 'replay.divergence' || event.nodeId === undefined) return [];
    const data = event.data;
    return [
      {
        path: paths.get(event.nodeId) ?? '?',
        nodeId: event.nodeId,
        call: Number(data.call),
        what: String(data.what),
        recorded: typeof data.recorded === 'string' ? data.recorded : null,
        replayed: typeof data.replayed === 'string' ? data.replayed : null,
        live: data.live === true,
      },
    ];
  });
}

/** Parses `PATH@STEP` (`0.2@3`): a node's path and one of its model calls, from 1. */
export function parseForkPoint(text: string): { path: string; step: number } {
  const match = /^(0(?:\.[1-9]\d*)*)@([1-9]\d*)$/.exec(text);
  if (match?.[1] === undefined || match[2] === undefined)
    throw new ArborError(
      'usage',
      `--from expects PATH@STEP, a node's path and one of its model calls from 1 (such as \`0.2@3\`); got \`${text}\`.`,
    );
  return { path: match[1], step: Number(match[2]) };
}

/**
 * What a replay of `runId` could not check, and what differs without being a divergence: model
 * calls recorded by an arbor that did not record their system prompt or tools (those checks are
 * skipped), and the arbor version that recorded the run when it is known and not this one.
 */
export function replayNotes(
  store: Pick<RunStore, 'getRun' | 'listEvents'>,
  runId: string,
): string[] {
  const { calls } = modelCallsOf(store.listEvents(runId));
  const all = [...calls.values()].flat();
  const notes: string[] = [];
  const lacking = (what: string, count: number) => {
    if (count > 0)
      notes.push(
        `${count} of ${all.length} recorded model calls have no ${what} on record: not compared (recorded by an older arbor)`,
      );
  };
  lacking('system prompt', all.filter((c) => c.system_digest === undefined).length);
  lacking('tools set', all.filter((c) => c.tools_digest === undefined).length);
  const version = store.getRun(runId)?.meta.arbor_version;
  if (typeof version === 'string' && version !== ARBOR_VERSION)
    notes.push(
      `recorded by arbor ${version}, replayed by arbor ${ARBOR_VERSION}: a note, not a divergence`,
    );
  return notes;
}
