import type { RunEventBodyOf } from '../../protocol/index.js';
import { childCommand, customChildCommand, type ChildCommand } from './child-entry.js';
import { ensureChildSnapshot, type SnapshotState } from './child-snapshot.js';

/** Records the run-level `child.entry` event (no node). */
type RecordRunEvent = (event: RunEventBodyOf<'child.entry'>) => void;

/**
 * How one supervisor starts its process children: from the child's start-up snapshot once it is
 * ready (built on first use, see `child-snapshot.ts`), else from the bundle; a command given in
 * the options or in `ARBOR_CHILD_COMMAND` as it is. `prepare` is awaited before the first process
 * child starts, and records once, as the run's `child.entry` event, which entry children start
 * from and, when it is the bundle, why; Node's warnings from building a snapshot go there too,
 * never to the terminal.
 */
export class ChildLauncher {
  readonly #custom: ChildCommand | undefined;
  readonly #env: NodeJS.ProcessEnv;
  readonly #record: RecordRunEvent;
  #prepared: Promise<void> | undefined;
  #command: ChildCommand | undefined;

  constructor(options: {
    custom: ChildCommand | undefined;
    env: NodeJS.ProcessEnv;
    record: RecordRunEvent;
  }) {
    this.#custom = options.custom;
    this.#env = options.env;
    this.#record = options.record;
  }

  /** Settles once the command for process children is known. Never rejects. */
  prepare(): Promise<void> {
    this.#prepared ??= this.#resolve();
    return this.#prepared;
  }

  /** The command that starts a process child now. */
  command(): ChildCommand {
    return this.#custom ?? this.#command ?? childCommand(this.#env);
  }

  async #resolve(): Promise<void> {
    if (this.#custom !== undefined) return;
    const { command, state } = await resolveChildCommand(this.#env);
    this.#command = command;
    if (state !== undefined) this.#record(entryEvent(state));
  }
}

/**
 * The command that starts arbor's child, from the snapshot where it can be built (`state` says
 * how it went); `ARBOR_CHILD_COMMAND` as it is, with no state.
 */
export async function resolveChildCommand(
  env: NodeJS.ProcessEnv,
): Promise<{ command: ChildCommand; state: SnapshotState | undefined }> {
  const custom = customChildCommand(env);
  if (custom !== undefined) return { command: custom, state: undefined };
  const state = await ensureChildSnapshot(env);
  const command = state.blob === undefined ? childCommand(env) : snapshotCommand(state.blob);
  return { command, state };
}

/** The command that starts a child from a snapshot blob. */
export function snapshotCommand(blob: string): ChildCommand {
  return { command: process.execPath, args: ['--snapshot-blob', blob] };
}

function entryEvent(state: SnapshotState): RunEventBodyOf<'child.entry'> {
  return {
    type: 'child.entry',
    entry: state.blob === undefined ? 'bundle' : 'snapshot',
    ...(state.blob === undefined ? {} : { snapshot: state.blob }),
    ...(state.reason === undefined ? {} : { reason: state.reason }),
    ...(state.built ? { built: true } : {}),
    ...(state.buildMs === undefined ? {} : { buildMs: state.buildMs }),
    ...(state.warnings.length === 0 ? {} : { warnings: state.warnings }),
  };
}
