import { StdioServerTransport } from '@modelcontextprotocol/sdk/server/stdio.js';
import path from 'node:path';
import { loadConfigFile, resolveRunSettings } from '../config/index.js';
import { EXIT } from '../runtime/index.js';
import { ArborMcp, openMcpArbor, resolveMcpCaps } from '../serve/index.js';
import { write, type CliIo } from './output.js';
import { RUN_OPTIONS } from './run-options.js';
import { withIntelligence } from './run-setup.js';
import { parseCommandArgs, usageError } from './usage-error.js';
import { VERSION } from './version.js';

const { warm: _warm, json: _json, events: _events, resume: _resume, ...MCP_OPTIONS } = RUN_OPTIONS;

export const MCP_HELP = `Usage: arbor mcp [options]

Runs arbor as an MCP server on stdin and stdout, for MCP hosts (Claude Code, Codex, Cursor) to
call arbor as a bounded delegate. Tools: arbor.run (an instruction; optional grant, budget and
deadline), arbor.plan (a plan as TOML, or a plan file's path), runs.list and runs.show. Long
runs are MCP tasks (tasks/get, tasks/result, tasks/cancel), kept in the store; a host without
tasks gets a blocking call. A host that disconnects cancels its runs.

A caller's run may read the working directory and nothing else unless the server allows more:
--fs-read, --fs-write, --exec and --net (or [mcp.serve] grant in --config) set what a caller may
have at most; a caller can only narrow it. [mcp.serve] max_tokens, max_usd and max_deadline (or
--max-tokens, --budget-usd, --deadline) cap each run.

The model, limits, MCP, sandbox and store options are those of \`arbor run\` (see
\`arbor run --help\`). Nothing but MCP is written to stdout. See docs/mcp-server.md.
`;

/** `arbor mcp`: serves until the host closes stdin (or SIGTERM/SIGINT), then cancels what runs. */
export async function mcpCommand(args: string[], io: CliIo): Promise<number> {
  if (args.includes('--help') || args.includes('-h')) {
    await write(io.stdout, MCP_HELP);
    return EXIT.ok;
  }
  const { values, positionals } = parseCommandArgs('mcp', args, MCP_OPTIONS, true);
  if (positionals.length > 0)
    throw usageError(
      `\`arbor mcp\` takes no instruction (calls come over MCP); got \`${positionals.join(' ')}\`.`,
    );
  const env = io.env;
  const cwd = process.cwd();
  const settings = resolveRunSettings('(each call says)', values, env);
  const table =
    settings.configPath === undefined ? undefined : loadConfigFile(settings.configPath).mcp?.serve;
  const caps = resolveMcpCaps(settings, table, values, cwd);
  if (settings.dbPath !== ':memory:') settings.dbPath = path.resolve(cwd, settings.dbPath);
  return withIntelligence(settings, env, async (intelligence) => {
    const { arbor, store } = await openMcpArbor(settings, caps, intelligence, env, cwd);
    const mcp = new ArborMcp({ arbor, store, caps, cwd, transport: 'stdio', version: VERSION });
    const transport = new StdioServerTransport(io.stdin, io.stdout);
    const ended = new Promise<string>((resolve) => {
      const gone = (): void => {
        resolve('the MCP host disconnected');
      };
      io.stdin.once('end', gone);
      io.stdin.once('close', gone);
      transport.onclose = gone;
      process.once('SIGTERM', () => {
        resolve('SIGTERM');
      });
      process.once('SIGINT', () => {
        resolve('SIGINT');
      });
    });
    await mcp.connect(transport);
    await write(io.stderr, `arbor: MCP server on stdio (store ${settings.dbPath})\n`);
    const why = await ended;
    const running = mcp.running;
    await mcp.cancelAll(`cancelled: ${why}`);
    await arbor.close();
    if (running > 0)
      await write(io.stderr, `arbor: ${why}: cancelled ${running} running task(s)\n`);
    return EXIT.ok;
  });
}
