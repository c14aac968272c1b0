import { isArborError } from '../protocol/index.js';
import { configCommand } from './config-command.js';
import { EXIT } from '../runtime/index.js';
import { mockLlm } from './mock-llm.js';
import { write, type CliIo } from './output.js';
import { doctor } from './doctor.js';
import { gateCommand } from './gate.js';
import { planCommand } from './plan.js';
import { PROTOCOL_CHECK_HELP, protocolCheck } from './protocol-check.js';
import { RUN_HELP, resumeRun, runCommand } from './run.js';
import { runsCommand } from './runs-command.js';
import { RUN_OPTIONS } from './run-options.js';
import { parseCommandArgs } from './usage-error.js';
import { usageError } from './usage-error.js';
import { VERSION } from './version.js';

const HELP = `arbor ${VERSION} — bounded, isolated, observable delegation between LLM agents

Usage: arbor <command> [options]

Commands:
  run <instruction>  run one root agent; result on stdout, live tree on stderr
  resume RUN         continue an interrupted run (its supervisor died) from its records
  replay RUN|FILE    run a recorded run again from its records (no model calls); fork it live
  runs               past and present runs: list, show, events, transcript, export, prune
  serve              a long-lived service: tasks over A2A, with principals, health and metrics
  mcp                an MCP server on stdio: MCP hosts call arbor as a bounded delegate
  ui                 the web dashboard over a store: runs, live trees, timelines, transcripts
  worker             take nodes from a fleet's queues on Redis and run them here
  worker keygen      make a fleet key pair (a worker's or the supervisor's)
  plan validate      check a plan file (TOML [[subtask]] tables) and report every problem
  plan show          draw a plan or run-log: task tree and dependencies, with statuses
  plan run|resume    run a plan's leaves as child agents in dependency order, with a run-log
  gate list|answer   questions agents are waiting on, and answering them
  config check       check a config file and report every problem with its line and column
  config schema      print the config file's JSON Schema, for editors
  doctor             what this machine has and lacks: Node.js, store, SQLite, sandbox, MCP SDK
  mock-llm           scripted LLM server (OpenAI chat, Anthropic, OpenAI Responses), for demos and tests
  protocol check     validate NDJSON protocol frames read from stdin

Run \`arbor <command> --help\` for a command's options.
`;

const RESUME_HELP = `Usage: arbor resume RUN [options]

Continues a run that was interrupted (its supervisor was killed or crashed, or its machine was
lost): the next arbor to open the store marks such a run \`interrupted\`. Nodes that had finished
keep their results and are not run again; nodes that were running are re-spawned from their
recorded transcripts and continue from their last completed step; a tool call that had completed
is not repeated. Only the step in flight at the crash may run again.

Intelligence, MCP servers and credentials come from the options, environment and config given
now (they were never stored): the same options as \`arbor run\`. The grant is the recorded one;
--fs-read, --fs-write, --exec and --net narrow it (never widen it). The limits are the recorded
ones; the deadline counts only the time the run was active, and --deadline replaces it.
The answer goes to stdout and the exit code is as for \`arbor run\`. A run whose supervisor is
still alive is refused. A warm session resumes as one: each line on stdin is its next message,
and an answer printed before the crash is not printed again. A plan run resumes from its run-log,
with \`arbor plan resume PLAN.run.toml\`.
`;

type Command = (args: string[], io: CliIo) => Promise<number>;

const COMMANDS: Record<string, Command> = {
  run: async (args, io) => {
    if (args.includes('--help') || args.includes('-h')) {
      await write(io.stdout, RUN_HELP);
      return EXIT.ok;
    }
    return runCommand(args, io, io.env);
  },
  replay: async (args, io) => (await import('./replay-command.js')).replayCommand(args, io),
  resume: async (args, io) => {
    if (args.includes('--help') || args.includes('-h')) {
      await write(io.stdout, RESUME_HELP);
      return EXIT.ok;
    }
    const { values, positionals } = parseCommandArgs('resume', args, RUN_OPTIONS, true);
    const [runId, ...rest] = positionals;
    if (runId === undefined || rest.length > 0 || values.resume !== undefined)
      throw usageError('`arbor resume` takes one run id: `arbor resume RUN [options]`.');
    return resumeRun(runId, values, io, io.env);
  },
  // Loaded on use: the A2A SDK, hono and prom-client are not a cost of every other command.
  serve: async (args, io) => (await import('./serve-command.js')).serveCommand(args, io),
  mcp: async (args, io) => (await import('./mcp-command.js')).mcpCommand(args, io),
  ui: async (args, io) => (await import('./ui-command.js')).uiCommand(args, io),
  worker: async (args, io) => (await import('./worker-command.js')).workerCommand(args, io),
  runs: runsCommand,
  plan: planCommand,
  gate: gateCommand,
  config: configCommand,
  doctor,
  'mock-llm': mockLlm,
  protocol: async (args, io) => {
    const [sub, ...rest] = args;
    if (sub === 'check') return protocolCheck(rest, io);
    if (sub === undefined || sub === '--help' || sub === '-h') {
      await write(io.stdout, PROTOCOL_CHECK_HELP);
      return sub === undefined ? EXIT.usage : EXIT.ok;
    }
    throw usageError(`Unknown subcommand \`protocol ${sub}\`; expected \`protocol check\`.`);
  },
};

/** Runs the CLI with the given arguments and returns the exit code. */
export async function runCli(argv: string[], io: CliIo): Promise<number> {
  const [command, ...args] = argv;
  try {
    if (command === undefined || command === '--help' || command === '-h' || command === 'help') {
      await write(io.stdout, HELP);
      return command === undefined ? EXIT.usage : EXIT.ok;
    }
    if (command === '--version' || command === '-V') {
      await write(io.stdout, `${VERSION}\n`);
      return EXIT.ok;
    }
    const run = Object.hasOwn(COMMANDS, command) ? COMMANDS[command] : undefined;
    if (run === undefined)
      throw usageError(`Unknown command \`${command}\`. Run \`arbor --help\`.`);
    return await run(args, io);
  } catch (error) {
    // The reader went away (`arbor runs events RUN | head`): nothing more to say, and no error.
    if ((error as NodeJS.ErrnoException | undefined)?.code === 'EPIPE') return EXIT.ok;
    if (
      isArborError(error, 'usage') ||
      isArborError(error, 'config') ||
      isArborError(error, 'plan_invalid')
    ) {
      await write(io.stderr, `arbor: ${error.message}\n`);
      return EXIT.usage;
    }
    const detail = error instanceof Error ? (error.stack ?? error.message) : String(error);
    await write(io.stderr, `arbor: internal error: ${detail}\n`);
    return EXIT.internal;
  }
}
