import type { Caveats, JsonObject, SandboxSettings, TrifectaTag } from '../protocol/index.js';
import { grantsNet } from './net-scope.js';
import type { TaggedSource } from './trifecta.js';

/**
 * What a tool brings to the trifecta, declared by the tool itself (each built-in tool in
 * `src/tools/builtin/`; a host tool's `tags`). An MCP server's tags come from config instead
 * (`tags` in its table, `--mcp-tags`): see `effectiveServerTags` and `runtimeServerTags`.
 */
export interface ToolTrifecta {
  /**
   * The legs holding the tool brings: `untrusted_input` (its results come from outside),
   * `sensitive` (it reaches private data), `egress` (it can send data out). Counted by the check
   * at spawn (`checkTrifecta`) and matched by policy rules' `tags`.
   */
  readonly tags: readonly TrifectaTag[];
  /**
   * Judged by the runtime trifecta alone, on what a node actually does with it, and not counted by
   * the check at spawn: a node with `fs.read` and `http.fetch` starts.
   */
  readonly runtimeOnly?: boolean;
  /**
   * Legs among `tags` that a call brings only when the runtime sees it happen, not with every
   * result: `exec` reaches sensitive data, but a node becomes sensitive only through a command
   * that names a sensitive file or prints a credential.
   */
  readonly perCall?: readonly TrifectaTag[];
  /**
   * Its results may carry content from outside without being fenced (a command with the network:
   * `curl` prints what a server sent): a call exposes the node all the same.
   */
  readonly exposes?: boolean;
  /** Where its results come from, for a provenance line and `exposed_by`; its name by default. */
  readonly source?: string;
}

/** What a tool's results are and what calling it does, for content isolation and the trifecta. */
export interface ToolProfile {
  /** Its results come from outside (the web, an MCP server nobody vetted): fenced and scanned. */
  untrusted: boolean;
  /** Calling it can send data out of the machine. */
  egress: boolean;
  /**
   * Its results may carry content from outside without being fenced (a command with the
   * network: `curl` prints what a server sent): the agent becomes exposed all the same.
   */
  exposes?: boolean;
  /** Its results are sensitive data (an MCP server tagged `sensitive`). */
  sensitive: boolean;
  /** Where its results come from, for a provenance line: `mcp:github`, `http.fetch`. */
  source: string;
}

/** How the runtime trifecta counts a call of the tool `name`, from what the tool declares. */
export function profileOf(trifecta: ToolTrifecta, name: string): ToolProfile {
  const brings = (leg: TrifectaTag): boolean =>
    trifecta.tags.includes(leg) && trifecta.perCall?.includes(leg) !== true;
  return {
    untrusted: brings('untrusted_input'),
    egress: brings('egress'),
    sensitive: brings('sensitive'),
    ...(trifecta.exposes === undefined ? {} : { exposes: trifecta.exposes }),
    source: trifecta.source ?? name,
  };
}

/**
 * The tools a node holds, as the check at spawn counts them: each with the tags it declares,
 * leaving out those the runtime trifecta alone judges (`runtimeOnly`).
 */
export function countedAtSpawn(
  tools: readonly { name: string; trifecta?: ToolTrifecta | undefined }[],
): TaggedSource[] {
  return tools
    .filter((tool) => tool.trifecta?.runtimeOnly !== true)
    .map((tool) => ({ name: tool.name, tags: tool.trifecta?.tags ?? [] }));
}

/**
 * Do a node's commands reach the network? Without the sandbox (off, or unavailable), or with any
 * `net` grant: through the egress proxy, a host list is a way out as `all` is.
 */
export function commandsHaveNetwork(grant: {
  sandbox: SandboxSettings;
  caveats: Caveats;
}): boolean {
  return grant.sandbox.mode !== 'bwrap' || grantsNet(grant.caveats.net);
}

/**
 * Is this call judged as egress by the runtime trifecta? A tool that can send data out, or a task
 * sent to a remote A2A agent (`subagent.run` with `provider: "a2a"`): it leaves the machine with
 * what the agent put in it.
 */
export function isEgressCall(
  profile: ToolProfile,
  call: { name: string; args: JsonObject },
): boolean {
  return profile.egress || (call.name === 'subagent.run' && call.args.provider === 'a2a');
}
