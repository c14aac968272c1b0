import { ALLOWED_TOOLS_ROLE, type SeedMessage, type SpawnPayload } from '../protocol/index.js';

/**
 * The tool allow-list rides in `context_seed` as one message with the reserved role, at index 0.
 * It lives there because the seed is the part of the payload handed verbatim to the child's loop,
 * and because a stored payload keeps it, so a restored node is narrowed the same way.
 */

/** Removes every allow-list marker from a seed, so a caller-supplied seed cannot forge one. */
export function stripAllowList(seed: readonly SeedMessage[]): SeedMessage[] {
  return seed.filter((message) => message.role !== ALLOWED_TOOLS_ROLE);
}

/**
 * Narrows a payload's tool grant to `allow`: drops any marker already in the seed, then puts the
 * supervisor's marker first. An empty `allow` narrows to no tools at all; to leave a child
 * unnarrowed, do not call this.
 */
export function narrowTools(payload: SpawnPayload, allow: readonly string[]): SpawnPayload {
  const marker: SeedMessage = { role: ALLOWED_TOOLS_ROLE, content: JSON.stringify([...allow]) };
  return { ...payload, context_seed: [marker, ...stripAllowList(payload.context_seed)] };
}

/**
 * The tool grant a payload carries: `undefined` when it is unnarrowed (every tool the granted
 * servers publish), otherwise the list of patterns. A marker that cannot be read, or one that is
 * not where the supervisor puts it, grants nothing: fail closed.
 */
export function allowedTools(payload: Pick<SpawnPayload, 'context_seed'>): string[] | undefined {
  const markers = payload.context_seed.filter((message) => message.role === ALLOWED_TOOLS_ROLE);
  if (markers.length === 0) return undefined;
  if (markers.length > 1 || payload.context_seed[0]?.role !== ALLOWED_TOOLS_ROLE) return [];
  return readAllowList(markers[0]?.content ?? '');
}

function readAllowList(content: string): string[] {
  let value: unknown;
  try {
    value = JSON.parse(content);
  } catch {
    return [];
  }
  if (!Array.isArray(value)) return [];
  if (!value.every((entry): entry is string => typeof entry === 'string' && entry.length > 0))
    return [];
  return value;
}

/** The seed the child's conversation starts from: the context without the allow-list marker. */
export function conversationSeed(payload: Pick<SpawnPayload, 'context_seed'>): SeedMessage[] {
  return stripAllowList(payload.context_seed);
}

/**
 * Does a tool name match an allow-list pattern? Patterns are `*` (everything), an exact name, or
 * a prefix ending in `*` (`fs.*`, `github_*`).
 */
export function matchesToolPattern(name: string, pattern: string): boolean {
  if (pattern === '*') return true;
  if (pattern.endsWith('*')) return name.startsWith(pattern.slice(0, -1));
  return name === pattern;
}

/** Is `name` allowed by a grant? An `undefined` grant is unnarrowed and allows every tool. */
export function isToolAllowed(name: string, allow: readonly string[] | undefined): boolean {
  return allow === undefined || allow.some((pattern) => matchesToolPattern(name, pattern));
}
