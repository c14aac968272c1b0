import type { JsonObject, ReplayPayload, SpawnPayload, ToolDef } from '../protocol/index.js';
import { toolRefusal, type Tool, type ToolOutput, type ToolSource } from '../tools/tool.js';
import { RecordedResults } from './replay-model.js';
import { recordedCallRefusal } from './replay-grant.js';

/** What serving a replayed node's tool calls from its record takes. */
export interface RecordedTools {
  results: RecordedResults;
  /** Whether the node has left its record (a divergence under `--continue-live`, a fork). */
  isLive(): boolean;
  /** Only these tools answer from the record (tools run live); absent: every tool does. */
  only?: ReadonlySet<string>;
  /** Why the grant held now refuses a call, checked before its recorded result is served. */
  refusal?(name: string, args: JsonObject): string | undefined;
}

/**
 * The tools that always run in a replay: the tree's own (`subagent.*`, whose children are
 * replayed in turn) and the capture of a structured result, which only checks and keeps a value.
 */
function runsInReplay(name: string, capture: string | undefined): boolean {
  return name.startsWith('subagent.') || name === capture;
}

/**
 * The tools whose results still come from the record when tools run live (`--tools live`): a
 * person's recorded answer is replayed, and a gate is asked again only once the node went live.
 */
const RECORDED_EVEN_LIVE: ReadonlySet<string> = new Set(['ask_human']);

/**
 * Which of a replayed node's tool calls are answered from its record: all of them under
 * `--tools recorded` (the default), only a person's answers under `--tools live`.
 */
export function recordedTools(payload: SpawnPayload, cwd: string): RecordedTools | undefined {
  const replay = payload.replay;
  if (replay === undefined) return undefined;
  return {
    results: new RecordedResults(replay.transcript),
    isLive: () => false,
    refusal: (name, args) => recordedCallRefusal(name, args, payload.caveats, replay.cwd ?? cwd),
    ...(replay.tool_results === 'live' ? { only: RECORDED_EVEN_LIVE } : {}),
  };
}

/**
 * A source whose tools answer from the record while the node replays it: the same definitions (so
 * the request offers what it offered), and each call answered with the recorded result of the call
 * with its id, without running anything. Once the node has gone live, its tools run.
 */
export function servedFromRecord(
  source: ToolSource,
  recorded: RecordedTools,
  capture: string | undefined,
): ToolSource {
  const wrap = (tool: Tool): Tool =>
    runsInReplay(tool.def.name, capture) || recorded.only?.has(tool.def.name) === false
      ? tool
      : {
          ...tool,
          run: async (args, context) => {
            if (recorded.isLive()) return tool.run(args, context);
            const refused = recorded.refusal?.(tool.def.name, args);
            // A recorded result is never served for a call the grant held now would refuse.
            if (refused !== undefined) {
              recorded.results.take(context.callId);
              return toolRefusal(refused);
            }
            return recorded.results.take(context.callId) ?? notRecorded(tool.def.name);
          },
        };
  return {
    kind: source.kind,
    name: source.name,
    tools: () => source.tools().map(wrap),
    ...(source.refresh === undefined
      ? {}
      : { refresh: (o: { signal: AbortSignal }) => source.refresh?.(o) ?? Promise.resolve() }),
  };
}

/**
 * The tools of a replayed node's MCP servers, from its record: no server is started. A server the
 * payload grants offers the recorded tools named after it (`server.tool`); one it does not grant
 * offers nothing, so a run replayed without a server it had finds its tools missing.
 */
export function recordedMcpSources(payload: SpawnPayload, replay: ReplayPayload): ToolSource[] {
  const defs = new Map<string, ToolDef>();
  for (const set of Object.values(replay.tools)) for (const def of set) defs.set(def.name, def);
  return payload.mcp_servers.map((server) => {
    const tools: Tool[] = [...defs.values()]
      .filter((def) => def.name.startsWith(`${server.name}.`))
      .map((def) => ({
        def,
        run: async () =>
          Promise.resolve({
            content: `The MCP server \`${server.name}\` is not started in a replay with recorded tool results.`,
            isError: true,
          }),
      }));
    return { kind: 'mcp', name: `mcp:${server.name}`, tools: () => tools };
  });
}

function notRecorded(name: string): ToolOutput {
  return {
    content: `The record holds no result for this call of \`${name}\`.`,
    isError: true,
  };
}
