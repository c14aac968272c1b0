import type { A2aPeerSpec, McpServerSpec } from '../protocol/index.js';
import { matchesToolPattern } from './tool-grant.js';

/** Is every name `narrow` allows also allowed by `wide`? (Patterns: `*`, exact, `prefix*`.) */
export function patternWithin(narrow: string, wide: string): boolean {
  if (wide === '*') return true;
  if (narrow === '*') return false;
  if (!narrow.endsWith('*')) return matchesToolPattern(narrow, wide);
  // A prefix pattern is within another prefix pattern whose prefix starts it.
  return wide.endsWith('*') && narrow.slice(0, -1).startsWith(wide.slice(0, -1));
}

/**
 * The meet of two tool grants (`undefined` = unnarrowed): exactly the names both allow. With these
 * patterns, two that both match a name are always nested, so keeping each pattern of one side that
 * lies within the other side gives the meet.
 */
export function meetToolGrants(
  parent: readonly string[] | undefined,
  requested: readonly string[] | undefined,
): string[] | undefined {
  if (parent === undefined) return requested === undefined ? undefined : [...new Set(requested)];
  if (requested === undefined) return [...parent];
  const kept = [
    ...requested.filter((r) => parent.some((p) => patternWithin(r, p))),
    ...parent.filter((p) => requested.some((r) => patternWithin(p, r))),
  ];
  return [...new Set(kept)];
}

/**
 * The named subset of a parent's entries (all of them when none are named). A name the parent
 * does not hold is an error naming it, never silently dropped.
 */
function narrowByName<T extends { name: string }>(
  parent: readonly T[],
  requested: readonly string[] | undefined,
  what: string,
): { ok: true; kept: T[] } | { ok: false; reason: string } {
  if (requested === undefined) return { ok: true, kept: [...parent] };
  const unknown = requested.filter((name) => !parent.some((entry) => entry.name === name));
  if (unknown.length > 0) {
    const yours = parent.map((entry) => `\`${entry.name}\``).join(', ') || 'none';
    return {
      ok: false,
      reason: `unknown ${what}${unknown.length > 1 ? 's' : ''} ${unknown.map((n) => `\`${n}\``).join(', ')} (yours: ${yours})`,
    };
  }
  return { ok: true, kept: parent.filter((entry) => requested.includes(entry.name)) };
}

/**
 * The A2A peers a child gets: the ones it asks for, by name, from its caller's; all of them when it
 * names none. A child never gets a peer its caller lacks.
 */
export function narrowPeers(
  parent: readonly A2aPeerSpec[],
  requested: readonly string[] | undefined,
): { ok: true; peers: A2aPeerSpec[] } | { ok: false; reason: string } {
  const narrowed = narrowByName(parent, requested, 'A2A peer');
  return narrowed.ok ? { ok: true, peers: narrowed.kept } : narrowed;
}

/** The servers a child gets: the named subset of its parent's (all of them when none are named). */
export function narrowServers(
  parent: readonly McpServerSpec[],
  requested: readonly string[] | undefined,
): { ok: true; servers: McpServerSpec[] } | { ok: false; reason: string } {
  const narrowed = narrowByName(parent, requested, 'server');
  return narrowed.ok ? { ok: true, servers: narrowed.kept } : narrowed;
}

/**
 * The peers a child holds: a subset of its caller's, by name (`peers`), all of them when it names
 * none; an `a2a` node holds exactly the one it delegates to (`peer`), which its caller must have.
 */
export function peersFor(
  parent: readonly A2aPeerSpec[],
  request: {
    provider?: string | undefined;
    peer?: string | undefined;
    peers?: string[] | undefined;
  },
): ReturnType<typeof narrowPeers> {
  if (request.provider !== 'a2a') {
    if (request.peer !== undefined)
      return { ok: false, reason: '`peer` goes with `provider: "a2a"`' };
    return narrowPeers(parent, request.peers);
  }
  if (request.peer === undefined) {
    const yours = parent.map((peer) => `\`${peer.name}\``).join(', ') || 'none';
    return {
      ok: false,
      reason: `\`provider: "a2a"\` needs \`peer\`: the agent to send the task to (yours: ${yours})`,
    };
  }
  return narrowPeers(parent, [request.peer]);
}
