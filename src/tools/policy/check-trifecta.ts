import type { TrifectaTag } from '../../protocol/index.js';

/** The three legs, in the order messages name them. */
const LEGS: readonly TrifectaTag[] = ['untrusted_input', 'sensitive', 'egress'];

/**
 * What the built-in `exec` brings when its commands have the network (`net = "all"`, or no
 * sandbox): a shell can read whatever its grant shows it (`sensitive`) and send it out
 * (`egress`). It is not tagged `untrusted_input`: what a command prints is output of a command
 * the grant named exactly, not content from outside.
 */
export const EXEC_TRIFECTA_TAGS: readonly TrifectaTag[] = ['sensitive', 'egress'];

/** What `exec` brings inside the sandbox without network: it can read, but not send. */
const EXEC_OFFLINE_TAGS: readonly TrifectaTag[] = ['sensitive'];

/**
 * What the built-in `http.fetch` brings: outside content (`untrusted_input`) and a way out
 * (`egress`). It is judged by the runtime trifecta, on what a node has actually read, not by the
 * static check at spawn: a node with `fs.read` and `http.fetch` starts.
 */
export const HTTP_FETCH_TAGS: readonly TrifectaTag[] = ['untrusted_input', 'egress'];

/** The tags `exec` counts with for a node: egress only when its commands have the network. */
export function execTrifectaTags(network: boolean): readonly TrifectaTag[] {
  return network ? EXEC_TRIFECTA_TAGS : EXEC_OFFLINE_TAGS;
}

/**
 * The tags an MCP server counts with. Tags come from config; a server nobody tagged counts as
 * `untrusted_input`, because an unknown server is exactly the kind whose output nobody vetted.
 */
export function effectiveServerTags(tags: readonly TrifectaTag[]): readonly TrifectaTag[] {
  return tags.length === 0 ? ['untrusted_input'] : tags;
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
   * Sources of tags that are not MCP servers, counted as tagged (no untagged default): typically
   * `{ name: 'exec', tags: execTrifectaTags(network) }` when the node may run commands.
   */
  extraTags?: readonly { name: string; tags: readonly TrifectaTag[] }[];
}

/**
 * The Rule of Two: a node that would read untrusted input, touch sensitive data and be able to
 * send data out at once is one prompt injection away from exfiltration, so holding all three is
 * refused unless the operator allows it. Checked over the servers a node would hold (all declared
 * servers at start-up, the narrowed set at each spawn).
 */
export function checkTrifecta(
  servers: readonly { name: string; tags: readonly TrifectaTag[] }[],
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
function remedies(
  servers: readonly { name: string; tags: readonly TrifectaTag[] }[],
  options: TrifectaOptions,
): string[] {
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
        '`--exec none`), or give commands no network (`--net none` or a host list)',
    );
  out.push('set security.allow_trifecta (or pass `--allow-trifecta`) to allow it');
  return out;
}
