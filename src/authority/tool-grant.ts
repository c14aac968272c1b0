import { ALLOWED_TOOLS_ROLE, type SeedMessage, type SpawnPayload } from '../protocol/index.js';

/**
 * A child's tool grant is the payload's typed `allowed_tools`, minted by the supervisor and never
 * taken from a caller. It travels with the payload, so a stored payload keeps it and a restored
 * node is narrowed the same way.
 */

/**
 * Removes every reserved allow-list message from a seed, so context a caller hands down can never
 * pose as a grant (the old wire form of the allow-list rode in the seed).
 */
export function stripAllowList(seed: readonly SeedMessage[]): SeedMessage[] {
  return seed.filter((message) => message.role !== ALLOWED_TOOLS_ROLE);
}

/**
 * Narrows a payload's tool grant to `allow`. An empty `allow` narrows to no tools at all; to
 * leave a child unnarrowed, do not call this.
 */
export function narrowTools<P extends Pick<SpawnPayload, 'context_seed'>>(
  payload: P,
  allow: readonly string[],
): P & { allowed_tools: string[] } {
  return {
    ...payload,
    context_seed: stripAllowList(payload.context_seed),
    allowed_tools: [...allow],
  };
}

/** The tool grant a payload carries: `undefined` when it is unnarrowed, otherwise the patterns. */
export function allowedTools(payload: Pick<SpawnPayload, 'allowed_tools'>): string[] | undefined {
  return payload.allowed_tools;
}

/** The seed the child's conversation starts from: never a reserved allow-list message. */
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
