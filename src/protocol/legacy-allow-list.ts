import { ALLOWED_TOOLS_ROLE, type SeedMessage } from './messages.js';

/**
 * Protocol v1 first carried a child's tool allow-list as JSON text inside `context_seed`: one
 * message with the reserved role `arbor/allowed-tools`, at index 0. The grant is now the typed
 * payload field `allowed_tools`; an older supervisor's frame is still accepted, its marker read
 * here and lifted into that field, so the seed that reaches a child never holds a marker.
 *
 * A marker that cannot be read as a list of non-empty names grants nothing: fail closed.
 */
export function readLegacyAllowList(seed: readonly SeedMessage[]): string[] | undefined {
  const first = seed[0];
  if (first?.role !== ALLOWED_TOOLS_ROLE) return undefined;
  let value: unknown;
  try {
    value = JSON.parse(first.content);
  } catch {
    return [];
  }
  if (!Array.isArray(value)) return [];
  if (!value.every((entry): entry is string => typeof entry === 'string' && entry.length > 0))
    return [];
  return value;
}

/** The seed without any allow-list marker. */
export function withoutAllowListMarkers(seed: readonly SeedMessage[]): SeedMessage[] {
  return seed.filter((message) => message.role !== ALLOWED_TOOLS_ROLE);
}
