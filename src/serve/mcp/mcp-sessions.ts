import { randomUUID } from 'node:crypto';
import { WebStandardStreamableHTTPServerTransport } from '@modelcontextprotocol/sdk/server/webStandardStreamableHttp.js';
import type { Arbor } from '../../api/arbor.js';
import type { McpServeTable, RunSettings } from '../../config/index.js';
import { meetGrant } from '../../authority/index.js';
import type { SqliteStore } from '../../store/index.js';
import type { Principal } from '../principals.js';
import { ArborMcp } from './arbor-mcp.js';
import { resolveMcpCaps, type McpCaps } from './mcp-caps.js';
import { ArborTaskStore } from './mcp-task-store.js';

interface Session {
  mcp: ArborMcp;
  transport: WebStandardStreamableHTTPServerTransport;
  owner: string;
}

/**
 * MCP over Streamable HTTP at `/mcp` of `arbor serve`: one MCP session per `initialize`, each
 * bound to the principal that opened it (another principal's token gets 404 for it). Tasks belong
 * to the principal, not the session: they outlive it and are seen from its next session.
 */
interface SessionOptions {
  arbor: Arbor;
  store: SqliteStore;
  caps: McpCaps;
  cwd: string;
  version: string;
  /** Throws, saying why, when `principal` may not start a run now (the server's limits). */
  admit?: (principal: Principal) => void;
}

export class McpSessions {
  readonly #sessions = new Map<string, Session>();
  readonly #o: SessionOptions;

  constructor(options: SessionOptions) {
    this.#o = options;
    new ArborTaskStore(options.store, () => Promise.resolve()).settleAbandoned();
  }

  async handle(request: Request, principal: Principal): Promise<Response> {
    const id = request.headers.get('mcp-session-id');
    if (id !== null) {
      const session = this.#sessions.get(id);
      if (session?.owner !== principal.name)
        return Response.json(
          { jsonrpc: '2.0', id: null, error: { code: -32001, message: 'Session not found.' } },
          { status: 404 },
        );
      return session.transport.handleRequest(request);
    }
    const { admit, ...rest } = this.#o;
    const mcp = new ArborMcp({
      ...rest,
      transport: 'http',
      owner: { name: principal.name, role: principal.role },
      ...(admit === undefined
        ? {}
        : {
            admit: () => {
              admit(principal);
            },
          }),
    });
    const transport: WebStandardStreamableHTTPServerTransport =
      new WebStandardStreamableHTTPServerTransport({
        sessionIdGenerator: () => randomUUID(),
        onsessioninitialized: (sessionId) => {
          this.#sessions.set(sessionId, { mcp, transport, owner: principal.name });
        },
        onsessionclosed: (sessionId) => {
          this.#sessions.delete(sessionId);
        },
      });
    await mcp.connect(transport);
    return transport.handleRequest(request);
  }

  /** Closes every session; their runs go on as tasks (or stop with the server's `Arbor`). */
  async close(): Promise<void> {
    const sessions = [...this.#sessions.values()];
    this.#sessions.clear();
    await Promise.all(sessions.map((session) => session.mcp.server.close()));
  }
}

/**
 * The MCP sessions of `arbor serve`: the caps are `[mcp.serve]`'s (the serve flags set the A2A
 * grant, not these), never more than the server's own grant.
 */
export function mcpSessionsOf(
  options: {
    settings: RunSettings;
    cwd: string;
    mcp?: { table: McpServeTable | undefined; version: string };
  },
  arbor: Arbor,
  store: SqliteStore,
  admit?: (principal: Principal) => void,
): McpSessions {
  const caps = resolveMcpCaps(options.settings, options.mcp?.table, {}, options.cwd);
  caps.grant = meetGrant(options.settings.grant, caps.grant, { cwd: options.cwd });
  return new McpSessions({
    arbor,
    store,
    caps,
    cwd: options.cwd,
    version: options.mcp?.version ?? '0.0.0',
    ...(admit === undefined ? {} : { admit }),
  });
}
