import type { Caveats } from '../protocol/index.js';

/**
 * The authority a plan run holds before anything narrows it: files confined to the working
 * directory (read and write), commands and hosts unrestricted, tool calls unlimited. Each leaf
 * gets this met with its own policy, so a subtask that asks for `exec = "all"` still gets only
 * what the run holds. Flags and config narrow this further when a run starts.
 */
export function defaultRunGrant(cwd: string): Caveats {
  return { fs_read: [cwd], fs_write: [cwd], exec: 'all', net: 'all', max_calls: 'unlimited' };
}
