import { z } from 'zod';
import { type Scope, type TrifectaTag } from '../../protocol/index.js';
import { prepareCommand, sweepPlantedPointers } from '../sandbox/index.js';
import { toolError, toolRefusal, type Tool } from '../tool.js';
import type { BuiltinContext, BuiltinLimits } from './builtin-context.js';
import { execNetwork } from './exec-network.js';
import { runCommand, type CommandResult } from './run-command.js';
import { ArgsCache, inputSchema, parseToolArgs } from './tool-args.js';
import { commandsHaveNetwork, permitsExec, type ToolTrifecta } from '../../authority/index.js';

const NAME = 'exec';

/** Allowed commands spelled out in the tool description; a longer grant is summarised. */
const MAX_LISTED = 20;

/**
 * What `exec` brings when its commands have the network (`net = "all"`, or no sandbox): a shell
 * can read whatever its grant shows it (`sensitive`) and send it out (`egress`). It is not tagged
 * `untrusted_input`: what a command prints is output of a command the grant named exactly, not
 * content from outside.
 */
export const EXEC_TRIFECTA_TAGS: readonly TrifectaTag[] = ['sensitive', 'egress'];

/** What `exec` brings inside the sandbox without network: it can read, but not send. */
export const EXEC_OFFLINE_TAGS: readonly TrifectaTag[] = ['sensitive'];

/** The tags `exec` counts with for a node: egress only when its commands have the network. */
function execTrifectaTags(network: boolean): readonly TrifectaTag[] {
  return network ? EXEC_TRIFECTA_TAGS : EXEC_OFFLINE_TAGS;
}

/**
 * What `exec` declares to the trifecta under a grant: its tags (above); at run time a command
 * makes the node sensitive only when it names a sensitive file or prints a credential (judged per
 * call), and, with the network, exposes it — a command can print what a server sent — without
 * its output being fenced.
 */
function execTrifecta(grant: Parameters<typeof commandsHaveNetwork>[0]): ToolTrifecta {
  const network = commandsHaveNetwork(grant);
  return {
    tags: execTrifectaTags(network),
    perCall: ['sensitive'],
    exposes: network,
    source: 'exec with network',
  };
}

/**
 * `exec`: runs a shell command, but only one the `exec` caveat names exactly. The string goes to
 * `sh -c` as it is, so matching anything looser than the exact string (a basename, a prefix) would
 * let `./cargo` or `cargo; curl …` through on a `cargo` grant. The match is the second line: the
 * command runs in a bubblewrap sandbox that sees only the node's `fs_read` (read-only) and
 * `fs_write` (read-write) minus the run's own state, its own `/proc` and `/tmp`, and a network
 * namespace of its own whose only way out is the node's egress proxy, which holds it to `net`.
 */
export function execTool(context: BuiltinContext): Tool {
  const { limits, caveats } = context;
  const Args = argsFor(caveats.exec, limits);
  return {
    def: {
      name: NAME,
      description:
        `Run a shell command (sh -c) in the working directory and return its exit code and the ` +
        `last ${limits.execOutputBytes / 1024} KiB of stdout and stderr. Commands must match an ` +
        'allowed command exactly; the whole process group is killed on timeout. ' +
        sandboxNote(context),
      input_schema: inputSchema(Args),
    },
    trifecta: execTrifecta(context),
    run: async (raw, { signal }) => {
      const parsed = parseToolArgs(NAME, Args, raw);
      if (!parsed.ok) return toolRefusal(parsed.message);
      const { command, timeout_ms: timeoutMs = limits.execTimeoutMs } = parsed.args;
      if (!permitsExec(caveats, command)) {
        return toolRefusal(
          `\`${NAME}\` refused: \`${command}\` is not an allowed command (exec, exact match; ` +
            `allowed: ${listCommands(caveats.exec)}).`,
        );
      }
      const net = await execNetwork(context, command, signal);
      const prepared = prepareCommand({
        settings: context.sandbox,
        caveats,
        protect: context.protect,
        cwd: context.cwd,
        env: context.env,
        network: net.network,
      });
      if (!prepared.ok) {
        net.close();
        return toolRefusal(`\`${NAME}\` refused: ${prepared.message}.`);
      }
      let result: CommandResult;
      let swept: string[];
      try {
        result = await runCommand(command, {
          cwd: context.cwd,
          env: prepared.env,
          wrap: prepared.wrap,
          timeoutMs,
          maxOutputBytes: limits.execOutputBytes,
          killGraceMs: limits.execKillGraceMs,
          signal,
        });
      } catch (error) {
        if (signal.aborted) throw error;
        const why = error instanceof Error ? error.message : String(error);
        return toolError(`\`${NAME}\`: could not start \`${command}\` in ${context.cwd}: ${why}.`);
      } finally {
        // Every process of the command has ended: what it planted in a git directory goes now,
        // and its egress session closes (the proxy reports its traffic).
        swept = sweepPlantedPointers(prepared.gitDirs, prepared.preparedAt);
        net.close();
      }
      // The process group is gone by now; a cancelled call ends as a cancellation, not a result.
      if (result.stopped?.why === 'cancelled') signal.throwIfAborted();
      const notes = [...prepared.notes, ...swept].map((note) => `[sandbox: ${note}]\n`).join('');
      return { content: notes + render(result, timeoutMs), isError: result.exitCode !== 0 };
    },
  };
}

type ExecArgs = ReturnType<typeof buildArgs>;

/**
 * The argument schema, one per grant and set of limits: building it and its JSON Schema took
 * about half a millisecond, paid by every child that was offered `exec`.
 */
const argsByGrant = new ArgsCache<ExecArgs>();

function argsFor(scope: Scope, limits: BuiltinLimits): ExecArgs {
  const key = JSON.stringify([scope, limits.execMaxTimeoutMs, limits.execTimeoutMs]);
  return argsByGrant.get(key, () => buildArgs(scope, limits));
}

function buildArgs(scope: Scope, limits: BuiltinLimits) {
  return z.strictObject({
    command: z.string().min(1).describe(commandHelp(scope)),
    timeout_ms: z
      .number()
      .int()
      .min(1)
      .max(limits.execMaxTimeoutMs)
      .optional()
      .describe(`Timeout in milliseconds (default ${limits.execTimeoutMs}).`),
  });
}

/** What the model is told about where its commands run. */
function sandboxNote(context: BuiltinContext): string {
  switch (context.sandbox.mode) {
    case 'bwrap':
      return (
        'Commands run in a sandbox: only the files you may read or write are there, with a ' +
        `private /tmp and HOME, and ${networkNote(context.caveats.net)}.`
      );
    case 'unavailable':
      return 'The sandbox is unavailable on this machine.';
    case 'off':
      return 'Commands run without a sandbox.';
  }
}

/** What the model is told about its commands' network. */
function networkNote(net: Scope): string {
  if (net === 'all')
    return 'public hosts through an HTTP proxy (HTTP_PROXY is set; loopback and private addresses are refused)';
  if (net.length === 0) return 'no network';
  return `only these hosts, through an HTTP proxy (HTTP_PROXY is set): ${net.join(', ')}`;
}

function render(result: CommandResult, timeoutMs: number): string {
  const lines = [status(result, timeoutMs)];
  if (result.droppedBytes > 0) lines.push(`[first ${result.droppedBytes} bytes of output dropped]`);
  lines.push(result.output === '' ? '(no output)' : result.output.replace(/\n$/, ''));
  return lines.join('\n');
}

function status(result: CommandResult, timeoutMs: number): string {
  const ms = `${result.durationMs} ms`;
  if (result.stopped?.why === 'timeout') {
    const how = result.stopped.forced ? 'SIGTERM, then SIGKILL' : 'SIGTERM';
    return `timed out after ${timeoutMs} ms: the process group was stopped with ${how}`;
  }
  if (result.exitCode !== null) return `exit code ${result.exitCode} (${ms})`;
  return `killed by ${result.signal ?? 'a signal'} (${ms})`;
}

function commandHelp(scope: Scope): string {
  if (scope === 'all') return 'The shell command to run.';
  return `The shell command to run; must be exactly one of: ${listCommands(scope)}.`;
}

function listCommands(scope: Scope): string {
  if (scope === 'all') return 'any command';
  if (scope.length === 0) return 'none';
  const shown = scope.slice(0, MAX_LISTED).map((c) => `\`${c}\``);
  const more = scope.length - shown.length;
  return shown.join(', ') + (more > 0 ? ` and ${more} more` : '');
}
