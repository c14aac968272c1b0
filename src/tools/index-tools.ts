import type { Tool, ToolKind, ToolSource } from './tool.js';

/** A tool as the registry holds it: the tool and where it came from. */
export interface IndexedTool {
  tool: Tool;
  kind: ToolKind;
  /** The source's short name (`builtin`, `mcp:github`). */
  source: string;
}

/** Two tools with one name: the one kept and the one dropped, for the log. */
export interface ToolConflict {
  name: string;
  kept: { kind: ToolKind; source: string };
  dropped: { kind: ToolKind; source: string };
}

export interface ToolIndex {
  /** Name → tool, in precedence order (internal, builtin, mcp; then source and list order). */
  tools: Map<string, IndexedTool>;
  conflicts: ToolConflict[];
}

const RANK: Record<ToolKind, number> = { internal: 0, builtin: 1, mcp: 2 };

/**
 * Indexes the tools of several sources by name. On a clash the higher kind wins (internal >
 * builtin > mcp), so an MCP server cannot shadow a first-party tool by publishing one of its names;
 * between sources of one kind, and within one source, the first listed wins. Every dropped tool is
 * reported, so the clash can be logged instead of silently changing what a name does.
 */
export function indexTools(sources: readonly ToolSource[]): ToolIndex {
  const ordered = sources
    .map((source, order) => ({ source, order }))
    .sort((a, b) => RANK[a.source.kind] - RANK[b.source.kind] || a.order - b.order)
    .map(({ source }) => source);
  const tools = new Map<string, IndexedTool>();
  const conflicts: ToolConflict[] = [];
  for (const source of ordered) {
    for (const tool of source.tools()) {
      const name = tool.def.name;
      const kept = tools.get(name);
      if (kept === undefined) {
        tools.set(name, { tool, kind: source.kind, source: source.name });
        continue;
      }
      conflicts.push({
        name,
        kept: { kind: kept.kind, source: kept.source },
        dropped: { kind: source.kind, source: source.name },
      });
    }
  }
  return { tools, conflicts };
}
