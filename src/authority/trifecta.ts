import type { TrifectaTag } from '../protocol/index.js';

/** The three legs, in the order messages name them. */
const LEGS: readonly TrifectaTag[] = ['untrusted_input', 'sensitive', 'egress'];

/** A source of trifecta legs, by the name messages give it: an MCP server, a tool. */
export interface TaggedSource {
  name: string;
  tags: readonly TrifectaTag[];
}

/**
 * The tags an MCP server counts with at spawn and for policy rules. Tags come from config; a
 * server nobody tagged counts as `untrusted_input`, because an unknown server is exactly the kind
 * whose output nobody vetted.
 */
export function effectiveServerTags(tags: readonly TrifectaTag[]): readonly TrifectaTag[] {
  return tags.length === 0 ? ['untrusted_input'] : tags;
}

/**
 * The tags an MCP server's calls count with at run time, in the child: a server nobody tagged is
 * untrusted and may send data out too, since nothing is known of it. (The check at spawn and the
 * policy rules count it as `untrusted_input` only: `effectiveServerTags`.)
 */
export function runtimeServerTags(tags: readonly TrifectaTag[]): readonly TrifectaTag[] {
  return tags.length === 0 ? ['untrusted_input', 'egress'] : tags;
}

/** For each leg, the names of the sources that bring it. */
type TrifectaLegs = Record<TrifectaTag, string[]>;

export type TrifectaCheck =
  | {
      ok: true;
      legs: TrifectaLegs;
      /** All three legs are held, and the operator allowed it: worth a line in the log. */
      allowed: boolean;
    }
  | { ok: false; legs: TrifectaLegs; message: string };

export interface TrifectaOptions {
  /** `security.allow_trifecta`. */
  allow: boolean;
  /**
   * Sources of tags that are not MCP servers, counted as tagged (no untagged default): the tools a
   * node holds, with the tags each declares (`exec`: `execTrifectaTags(network)`; host tools).
   */
  extraTags?: readonly TaggedSource[];
}

/**
 * The Rule of Two: a node that would read untrusted input, touch sensitive data and be able to
 * send data out at once is one prompt injection away from exfiltration, so holding all three is
 * refused unless the operator allows it. Checked over the servers a node would hold (all declared
 * servers at start-up, the narrowed set at each spawn).
 */
export function checkTrifecta(
  servers: readonly TaggedSource[],
  options: TrifectaOptions,
): TrifectaCheck {
  const legs: TrifectaLegs = { untrusted_input: [], sensitive: [], egress: [] };
  for (const server of servers) {
    const label = server.tags.length === 0 ? `${server.name}: untagged` : server.name;
    for (const tag of new Set(effectiveServerTags(server.tags))) legs[tag].push(label);
  }
  for (const source of options.extraTags ?? []) {
    for (const tag of new Set(source.tags)) legs[tag].push(source.name);
  }
  const held = LEGS.every((leg) => legs[leg].length > 0);
  if (!held) return { ok: true, legs, allowed: false };
  if (options.allow) return { ok: true, legs, allowed: true };
  const [untrusted, sensitive, egress] = LEGS.map((leg) => `${leg} (${legs[leg].join(', ')})`);
  return {
    ok: false,
    legs,
    message:
      `holding ${untrusted ?? ''}, ${sensitive ?? ''} and ${egress ?? ''} together is refused; ` +
      remedies(servers, options).join('; or '),
  };
}

/**
 * What the operator can do about a refused trifecta, most specific first: say what an untagged
 * server really does (an untagged server counts as all three), narrow the commands, and only then
 * lift the check.
 */
function remedies(servers: readonly TaggedSource[], options: TrifectaOptions): string[] {
  const out: string[] = [];
  const untagged = servers.filter((s) => s.tags.length === 0).map((s) => s.name);
  if (untagged.length > 0) {
    const example = untagged[0] ?? 'NAME';
    out.push(
      `tag ${untagged.join(', ')} with what ${untagged.length === 1 ? 'it does' : 'they do'} ` +
        `(untagged, a server counts as untrusted_input: \`--mcp-tags ${example}=sensitive\` for ` +
        'one that only reads your own data, or `tags` in its [[mcp.server]] table)',
    );
  }
  if ((options.extraTags ?? []).some((source) => source.name === 'exec'))
    out.push(
      'narrow `exec` to the commands the agent needs (`--exec "npm test,git status"`, or ' +
        '`--exec none`), or give commands no network (`--net none`)',
    );
  out.push('set security.allow_trifecta (or pass `--allow-trifecta`) to allow it');
  return out;
}
