import type { Caveats } from '../protocol/index.js';
import { countMeet, scopeMeet } from './caveats-lattice.js';
import { meetNetScopes } from './net-scope.js';
import { meetPathScopes, type PathContext } from './path-scope.js';

/**
 * `parent ⊓ requested`: the one meet every grant goes through, at the spawn chokepoint and for a
 * plan leaf alike. `fs_read` and `fs_write` meet as path prefixes, because the two sides often
 * speak differently: a run grants absolute directories (`/work/repo`) and a request or a policy
 * names paths relative to the working directory (`src/`), and the exact meet of those would be
 * empty. The path meet keeps exactly the paths both sides allow, so it never amplifies either.
 * `net` meets as host sets (`*.example.com` ⊓ `api.example.com` is `api.example.com`); `exec`
 * and `max_calls` meet exactly, as in the lattice.
 */
export function meetGrant(parent: Caveats, requested: Caveats, context: PathContext): Caveats {
  return {
    fs_read: meetPathScopes(parent.fs_read, requested.fs_read, context),
    fs_write: meetPathScopes(parent.fs_write, requested.fs_write, context),
    exec: scopeMeet(parent.exec, requested.exec),
    net: meetNetScopes(parent.net, requested.net),
    max_calls: countMeet(parent.max_calls, requested.max_calls),
  };
}

/** What a request leaves out stays the parent's: a partial request narrows only what it names. */
export function completeRequest(requested: {
  [K in keyof Caveats]?: Caveats[K] | undefined;
}): Caveats {
  return {
    fs_read: requested.fs_read ?? 'all',
    fs_write: requested.fs_write ?? 'all',
    exec: requested.exec ?? 'all',
    net: requested.net ?? 'all',
    max_calls: requested.max_calls ?? 'unlimited',
  };
}
