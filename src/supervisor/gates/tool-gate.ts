import path from 'node:path';
import {
  type AgentFrame,
  type McpServerSpec,
  type SpawnPayload,
  type TrifectaTag,
} from '../../protocol/index.js';
import {
  builtinTools,
  everyBuiltinTool,
  hostToolDef,
  hostToolFor,
  type BuiltinToolsOptions,
  type HostTool,
  type McpServerSet,
  type McpToolSource,
  type Tool,
} from '../../tools/index.js';
import type { RecordEvent } from '../event-sink.js';
import type { HumanGates } from './human-gates.js';
import { callSignal } from '../on-abort.js';
import { isYes, refuse, type ToolAnswer } from '../internal/index.js';
import type { LiveNode } from '../node/live-node.js';
import {
  allowedTools,
  checkTrifecta,
  countedAtSpawn,
  effectiveServerTags,
  isToolAllowed,
  knownTrajectory,
} from '../../authority/index.js';
import {
  evaluatePolicy,
  gatedTools,
  serverCouldBeGated,
  type CallerKind,
  type PolicyRule,
} from '../../authority/policy/index.js';

type ToolRequest = Extract<AgentFrame, { type: 'tool_request' }>;

export interface ToolGateOptions {
  /** `security.policies`: ordered, first match wins. */
  rules: readonly PolicyRule[];
  /** `security.allow_trifecta`. */
  allowTrifecta: boolean;
  cwd: string;
  humans: HumanGates;
  version: string;
  /** Records a decision or a routing as an event of the node. */
  record: RecordEvent;
  /** Tools the host process defined (`defineTool`): served here, to the nodes allowed them. */
  hostTools?: readonly HostTool[];
}

/** What a node's payload looks like on the wire once its gated tools are routed. */
export interface Gating {
  /** The payload sent to the child: routed servers removed, `gated_tools` and `routed_tools` set. */
  sent: SpawnPayload;
  routedServers: readonly string[];
}

/**
 * The supervisor's side of gated tools. Before a node starts, the tools a policy rule might touch
 * are named in its `gated_tools`; an MCP server with any such tool is not handed to the child at
 * all — the supervisor connects to it and offers its tools as `routed_tools` — so a child that
 * ignores the list has no route to call them. When a gated call arrives the rule is evaluated
 * (allow, deny, or ask a person), the decision recorded with the rule's index, and an allowed call
 * is run here, under the caller's own caveats.
 */
export class ToolGate {
  readonly #options: ToolGateOptions;
  /** MCP servers the supervisor holds the route for, by server name, shared by every node. */
  readonly #servers = new Map<string, Promise<{ set: McpServerSet; source: McpToolSource }>>();

  constructor(options: ToolGateOptions) {
    this.#options = options;
  }

  get hasRules(): boolean {
    return this.#options.rules.length > 0;
  }

  /**
   * The Rule of Two over what a node would hold: its servers, the built-in tools its grant offers
   * and its allow-list lets through, and its host tools, each with the tags it declares (`exec`
   * brings legs, the file tools none, `http.fetch` is left to the runtime trifecta).
   */
  checkTrifecta(payload: SpawnPayload): string | undefined {
    const allowed = allowedTools(payload);
    const builtins = this.#declaredBuiltins(payload, 'offered')
      .filter((tool) => isToolAllowed(tool.def.name, allowed))
      .map((tool) => ({ name: tool.def.name, trifecta: tool.trifecta }));
    const hosted = this.#hostToolsOf(payload).map((tool) => ({
      name: tool.name,
      trifecta: { tags: tool.tags },
    }));
    const check = checkTrifecta(payload.mcp_servers, {
      allow: this.#options.allowTrifecta,
      extraTags: countedAtSpawn([...builtins, ...hosted]),
    });
    return check.ok ? undefined : check.message;
  }

  /** Works out a node's gated and routed tools; connects the servers it must route. */
  async prepare(payload: SpawnPayload, caller: CallerKind, signal: AbortSignal): Promise<Gating> {
    const { rules } = this.#options;
    // Host tools are always served here: the child has no way to run them.
    const hosted = this.#hostToolsOf(payload);
    const hostRouted = hosted.map((tool) => ({ ...hostToolDef(tool), tags: [...tool.tags] }));
    if (rules.length === 0) {
      if (hosted.length === 0) return { sent: payload, routedServers: [] };
      return {
        sent: {
          ...payload,
          gated_tools: [...new Set([...payload.gated_tools, ...hosted.map((t) => t.name)])],
          routed_tools: [...payload.routed_tools, ...hostRouted],
        },
        routedServers: [],
      };
    }
    const builtins = this.#declaredBuiltins(payload, 'every').map((tool) => ({
      name: tool.def.name,
      tags: tool.trifecta?.tags ?? [],
    }));
    const gated = [...gatedTools(rules, builtins, caller), ...hosted.map((tool) => tool.name)];
    const routed = payload.mcp_servers.filter((server) =>
      serverCouldBeGated(rules, server, caller),
    );
    const routedTools = [];
    for (const server of routed) {
      const { source } = await this.#connect(server, signal);
      for (const tool of source.tools()) {
        routedTools.push({ ...tool.def, server: server.name, tags: server.tags });
        gated.push(tool.def.name);
      }
    }
    return {
      sent: {
        ...payload,
        mcp_servers: payload.mcp_servers.filter((server) => !routed.includes(server)),
        gated_tools: [...new Set([...payload.gated_tools, ...gated])],
        routed_tools: [...payload.routed_tools, ...hostRouted, ...routedTools],
      },
      routedServers: routed.map((server) => server.name),
    };
  }

  /** Serves a call the child sent up because it is gated. */
  async serve(caller: LiveNode, frame: ToolRequest, kind: CallerKind): Promise<ToolAnswer> {
    const sent = caller.sent ?? caller.payload;
    if (!sent.gated_tools.includes(frame.name)) {
      return refuse(
        `\`${frame.name}\` is not a tool the supervisor serves for this agent: call it directly.`,
      );
    }
    const tool = await this.#resolve(caller, frame.name);
    if (tool === undefined) return refuse(`\`${frame.name}\` is not available to this agent.`);
    const verdict = evaluatePolicy(this.#options.rules, {
      tool: frame.name,
      tags: tool.tags,
      caller: kind,
      args: frame.args,
      state: knownTrajectory(caller.node.trajectory, sent),
    });
    this.#options.record(caller.node.id, {
      type: 'policy.decision',
      tool: frame.name,
      action: verdict.action,
      ...(verdict.ruleIndex === undefined ? {} : { rule: verdict.ruleIndex }),
      reason: verdict.reason,
      ...(verdict.failedClosed ? { failedClosed: true } : {}),
    });
    if (verdict.action === 'deny') return refuse(`\`${frame.name}\` refused by ${verdict.reason}.`);
    if (verdict.action === 'ask') {
      const shown = JSON.stringify(frame.args);
      // The question is stored and shown: the arguments in it are cut, however large they are.
      const question =
        verdict.rule?.question ??
        `Allow \`${frame.name}\` with ${shown.length > 300 ? `${shown.slice(0, 300)}…` : shown}?`;
      const answer = await this.#options.humans.ask(
        caller.node.id,
        question,
        { tool: frame.name, args: frame.args, choices: ['yes', 'no'] },
        {
          signal: caller.stopped.signal,
          ...(verdict.rule?.timeout_ms === undefined ? {} : { timeoutMs: verdict.rule.timeout_ms }),
        },
      );
      const approved = answer.answered
        ? isYes(answer.answer)
        : verdict.rule?.on_timeout === 'allow' && answer.via === 'timeout';
      this.#options.record(caller.node.id, {
        type: 'policy.answer',
        tool: frame.name,
        approved,
        via: answer.via,
      });
      if (!approved) {
        return refuse(
          `\`${frame.name}\` was not approved (${verdict.reason}): ${answer.answered ? `the answer was "${answer.answer}"` : answer.reason}.`,
        );
      }
    }
    // The tool listens on a signal of this call's own, not on the node's shared one.
    const call = callSignal(caller.stopped.signal);
    const output = await tool.tool
      .run(frame.args, {
        signal: call.signal,
        callId: `gate-${frame.id}`,
        meta: {
          runId: sent.telemetry.run_id,
          nodeId: sent.telemetry.node_id,
          idempotencyKey: `${sent.telemetry.run_id}/${sent.telemetry.node_id}#gate.${frame.id}`,
        },
      })
      .finally(call.release);
    return {
      result: output.content,
      is_error: output.isError,
      ...(output.refused === true ? { refused: true } : {}),
    };
  }

  /**
   * The built-in tools under a node's grant, for what each declares: every one (a rule may gate a
   * name before anything is offered), or those the grant offers.
   */
  #declaredBuiltins(payload: SpawnPayload, which: 'every' | 'offered'): readonly Tool[] {
    // Only read here, never run: any absolute directory will do.
    const options = builtinOptions(payload, path.resolve(this.#options.cwd));
    return which === 'every' ? everyBuiltinTool(options) : builtinTools(options).tools();
  }

  /** The host tools a node may use: those its allow-list lets through. */
  #hostToolsOf(payload: SpawnPayload): readonly HostTool[] {
    const tools = this.#options.hostTools ?? [];
    if (tools.length === 0) return tools;
    const allowed = allowedTools(payload);
    return tools.filter((tool) => isToolAllowed(tool.name, allowed));
  }

  /** Closes the MCP connections the supervisor opened. */
  async close(): Promise<void> {
    const servers = await Promise.allSettled(this.#servers.values());
    await Promise.all(
      servers.map((server) =>
        server.status === 'fulfilled' ? server.value.set.closeAll() : Promise.resolve([]),
      ),
    );
  }

  async #resolve(
    caller: LiveNode,
    name: string,
  ): Promise<{ tool: Tool; tags: readonly TrifectaTag[] } | undefined> {
    const hosted = this.#hostToolsOf(caller.payload).find((tool) => tool.name === name);
    if (hosted !== undefined) {
      const { node } = caller;
      const tool = hostToolFor(hosted, {
        runId: caller.payload.telemetry.run_id,
        nodeId: node.id,
        nodePath: node.path,
        depth: node.depth,
      });
      return { tool, tags: hosted.tags };
    }
    if (this.#declaredBuiltins(caller.payload, 'every').some((t) => t.def.name === name)) {
      // A built-in the node's grant does not offer is not available, whatever its name.
      const tool = builtinTools(builtinOptions(caller.payload, caller.cwd ?? this.#options.cwd))
        .tools()
        .find((t) => t.def.name === name);
      return tool === undefined ? undefined : { tool, tags: tool.trifecta?.tags ?? [] };
    }
    for (const server of caller.payload.mcp_servers) {
      if (!name.startsWith(`${server.name}.`)) continue;
      const connected = this.#servers.get(server.name);
      if (connected === undefined) continue;
      const { source } = await connected;
      const tool = source.tools().find((t) => t.def.name === name);
      if (tool !== undefined) return { tool, tags: effectiveServerTags(server.tags) };
    }
    return undefined;
  }

  #connect(
    server: McpServerSpec,
    signal: AbortSignal,
  ): Promise<{ set: McpServerSet; source: McpToolSource }> {
    let connected = this.#servers.get(server.name);
    if (connected === undefined) {
      connected = import('../../tools/mcp/index.js').then(async ({ connectMcpServers }) => {
        const set = await connectMcpServers([{ ...server, required: true }], {
          signal,
          clientInfo: { name: 'arbor', version: this.#options.version },
        });
        const [source] = set.sources;
        if (source === undefined) throw new Error(`MCP server \`${server.name}\` did not connect`);
        return { set, source };
      });
      this.#servers.set(server.name, connected);
      // A failed connection is not kept: the next node that needs the server tries again.
      connected.catch(() => this.#servers.delete(server.name));
    }
    return connected;
  }
}

/** The built-in tools' options for a node of this payload, working in `cwd`. */
function builtinOptions(payload: SpawnPayload, cwd: string): BuiltinToolsOptions {
  return {
    caveats: payload.caveats,
    cwd,
    sandbox: payload.sandbox,
    protect: payload.protected_paths,
    namedHosts: payload.named_hosts,
    netCredentials: payload.net_credentials ?? [],
  };
}
