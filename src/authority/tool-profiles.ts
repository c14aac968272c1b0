import type { SpawnPayload, TrifectaTag } from '../protocol/index.js';
import { matchesToolPattern } from './tool-grant.js';
import { profileOf, type ToolProfile, type ToolTrifecta } from './tool-trifecta.js';
import { runtimeServerTags } from './trifecta.js';

/** What the runtime trifecta needs to know of a node's tools. */
export interface ToolLookup {
  /** What the built-in tool of this name declares, offered to the node or not; else `undefined`. */
  builtin(name: string): ToolTrifecta | undefined;
  /** The source an allowed tool comes from (`builtin`, `mcp:github`); `undefined` otherwise. */
  sourceOf(name: string): string | undefined;
}

/**
 * Each tool's profile, as a node's runtime trifecta counts its calls. A built-in tool counts with
 * what it declares (`http.fetch` untrusted and egress; `exec` egress, and exposing, when its
 * commands have the network; the file tools nothing); an MCP tool with its server's tags as the
 * runtime reads them (`runtimeServerTags`: an untagged server is untrusted and may send data out),
 * a routed one with the tags the supervisor sent; a tool matching
 * `content_isolation.untrusted_tools` is untrusted too. Everything else — the supervisor's own
 * tools, host tools — is trusted and sends nothing out.
 */
export function toolProfiles(
  payload: SpawnPayload,
  tools: ToolLookup,
): (name: string) => ToolProfile {
  const serverTags = new Map(payload.mcp_servers.map((s) => [s.name, s.tags]));
  const routed = new Map(payload.routed_tools.map((t) => [t.name, t]));
  const markedUntrusted = (name: string): boolean =>
    payload.content_isolation.untrusted_tools.some((pattern) => matchesToolPattern(name, pattern));
  const fromServer = (server: string, tags: readonly TrifectaTag[], name: string): ToolProfile =>
    profileOf({ tags: runtimeServerTags(tags), source: `mcp:${server}` }, name);
  const profileFor = (name: string): ToolProfile => {
    const declared = tools.builtin(name);
    // A built-in tool that brings a leg is judged as declared, whatever else takes its name.
    if (declared !== undefined && declared.tags.length > 0) return profileOf(declared, name);
    const route = routed.get(name);
    if (route?.server !== undefined) return fromServer(route.server, route.tags ?? [], name);
    const source = tools.sourceOf(name);
    if (declared === undefined && source?.startsWith('mcp:') === true) {
      const server = source.slice('mcp:'.length);
      return fromServer(server, serverTags.get(server) ?? [], name);
    }
    return profileOf(declared ?? { tags: [] }, name);
  };
  return (name) => {
    const profile = profileFor(name);
    return markedUntrusted(name) ? { ...profile, untrusted: true } : profile;
  };
}
