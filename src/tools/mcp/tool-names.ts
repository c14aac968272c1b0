import { createHash } from 'node:crypto';

/** What a tool name may hold once namespaced; the LLM layer turns dots into `_` on the wire. */
const ALLOWED = /^[A-Za-z0-9_.-]+$/;
const NOT_ALLOWED = /[^A-Za-z0-9_.-]/g;
/** The providers' limit on a function name. */
const MAX_NAME_LENGTH = 64;
const HASH_LENGTH = 6;

function shortHash(text: string, length: number): string {
  return createHash('sha256').update(text).digest('hex').slice(0, length);
}

function withSuffix(base: string, original: string, hashLength = HASH_LENGTH): string {
  const suffix = `-${shortHash(original, hashLength)}`;
  return base.slice(0, MAX_NAME_LENGTH - suffix.length) + suffix;
}

/**
 * The names a model sees for one server's tools, `<server>.<tool>`, mapped to each tool's name on
 * the server. A tool name with characters outside `[A-Za-z0-9_.-]` has them replaced by `_`; a
 * name too long for the providers is cut. Either way, and whenever two names would meet, the name
 * gets a suffix hashed from the original, so the mapping depends only on the names, never on the
 * order the server lists them in.
 */
export function mcpToolNames(server: string, tools: readonly string[]): Map<string, string> {
  const plain = new Map<string, string>();
  const changed: [string, string][] = [];
  for (const tool of tools) {
    const exposed = `${server}.${tool}`;
    if (ALLOWED.test(tool) && exposed.length <= MAX_NAME_LENGTH) plain.set(exposed, tool);
    else changed.push([`${server}.${tool.replace(NOT_ALLOWED, '_')}`, tool]);
  }
  const out = new Map(plain);
  for (const [base, tool] of changed) {
    // A rewritten name always carries its hash: it cannot take a name a plain tool might hold.
    const name = withSuffix(base, tool);
    out.set(out.has(name) ? withSuffix(base, tool, 4 * HASH_LENGTH) : name, tool);
  }
  return out;
}
