import { accessSync, constants, statSync } from 'node:fs';
import path from 'node:path';
import { loadConfigFile, resolveMcpServers, type ConfigFile } from '../config/index.js';
import { FleetKey } from '../fleet/fleet-key.js';
import { checkName, queuesOf } from '../fleet/queue-names.js';
import { fleetRedisUrl } from '../fleet/redis-url.js';
import { EXIT } from '../runtime/index.js';
import { resolveChildCommand, timingFromEnv } from '../supervisor/index.js';
import { probeSandbox } from '../tools/index.js';
import { write, type CliIo } from './output.js';
import { parseCommandArgs, usageError } from './usage-error.js';
import { workerKeygen } from './worker-keygen.js';

export const WORKER_HELP = `Usage: arbor worker [options]

Takes nodes from the fleet's queues on Redis (BullMQ) and runs each as a child process here, with
the same child, exec sandbox and kill ladder as a local one. The supervisor that queued a node
stays its only authority: it minted the payload, serves its requests and keeps its records; the
worker relays the child's frames. See docs/scale-out.md.

  --redis URL          the fleet's Redis, without a password (it would show in ps): a URL with
                       one goes in ARBOR_REDIS_URL, or [queue] redis = "env:NAME" in --config
  --concurrency N      children at once (default 4; [queue.worker] concurrency)
  --pool N             children kept started and loaded, waiting for a node: a node starts in
                       a few milliseconds instead of ~100 (default 2; 0 for none; each idle
                       child holds ~60 MB; [queue.worker] pool)
  --queue NAME         the base queue (default arbor; [queue] queue)
  --labels a,b         what this machine has (up to 4): it also takes jobs that need any of
                       them ([queue.worker] labels)
  --workspace DIR      the nodes' working directory here (default: the current directory;
                       [queue.worker] workspace)
  --config FILE        [queue], [queue.worker], and the [[mcp.server]]s this worker may start:
                       a node gets only servers named here, started as written here

ARBOR_FLEET_KEY (at least 32 characters, the supervisor's too) must be set: jobs and frames that
do not carry its MAC are refused. Credentials a node needs (the model's key, MCP servers' tokens)
come from this worker's environment, never from Redis.

Signals: SIGTERM or SIGINT drain (no new jobs; running nodes finish); a second one hands the
running nodes back, to be queued again for another worker.
`;

const WORKER_OPTIONS = {
  redis: { type: 'string' },
  concurrency: { type: 'string' },
  pool: { type: 'string' },
  queue: { type: 'string' },
  labels: { type: 'string' },
  workspace: { type: 'string' },
  config: { type: 'string' },
  help: { type: 'boolean', short: 'h' },
} as const;

/** `arbor worker`: runs until it is signalled and has drained (or handed its nodes back). */
export async function workerCommand(args: string[], io: CliIo): Promise<number> {
  if (args[0] === 'keygen') return workerKeygen(args.slice(1), io);
  const { values, positionals } = parseCommandArgs('worker', args, WORKER_OPTIONS, true);
  if (values.help === true) {
    await write(io.stdout, WORKER_HELP);
    return EXIT.ok;
  }
  if (positionals.length > 0)
    throw usageError(`\`arbor worker\` takes no arguments; got \`${positionals.join(' ')}\`.`);
  const env = io.env;
  const config: ConfigFile | undefined =
    values.config === undefined ? undefined : loadConfigFile(values.config);
  const table = config?.queue;
  const key = FleetKey.fromEnv(env);
  const url = fleetRedisUrl({ flag: values.redis, config: table?.redis }, env);
  if (url === undefined)
    throw usageError(
      "`arbor worker` needs the fleet's Redis: `--redis URL`, `ARBOR_REDIS_URL`, or `[queue] redis` in `--config`.",
    );
  const concurrency =
    countOf(values.concurrency, '--concurrency', 1) ?? table?.worker?.concurrency ?? 4;
  const pool = countOf(values.pool, '--pool', 0) ?? table?.worker?.pool ?? 2;
  const queue = checkName(values.queue ?? table?.queue ?? 'arbor', '`--queue`');
  const labels =
    values.labels === undefined
      ? (table?.worker?.labels ?? [])
      : values.labels
          .split(',')
          .map((label) => label.trim())
          .filter((label) => label !== '')
          .map((label) => checkName(label, 'a label in `--labels`'));
  // Checked before anything connects: a refusal here leaves nothing running.
  queuesOf(queue, labels);
  const workspace = checkWorkspace(
    path.resolve(values.workspace ?? table?.worker?.workspace ?? process.cwd()),
  );
  const servers = new Map(
    resolveMcpServers({ config: values.config }, config).map((server) => [server.name, server]),
  );
  const timing = timingFromEnv(env);
  const sandbox = await probeSandbox({
    env,
    bwrap: config?.security?.bwrap,
    trust: { writable: [workspace] },
  });
  const { FleetWorker } = await import('../fleet/fleet-worker.js');
  const log = (line: string): void => {
    void write(io.stderr, `arbor worker: ${line}\n`);
  };
  const entry = await resolveChildCommand(env);
  if (entry.state !== undefined)
    log(
      entry.state.blob === undefined
        ? `children start from the bundle: ${entry.state.reason ?? 'no snapshot'}`
        : `children start from the snapshot ${entry.state.blob}`,
    );
  const worker = await FleetWorker.start({
    url,
    key,
    queue,
    labels,
    concurrency,
    pool,
    workspace,
    command: entry.command,
    secrets: { env, servers, sandbox },
    ladder: {
      cancelGraceMs: timing.cancelGraceMs,
      termGraceMs: timing.termGraceMs,
      killWaitMs: timing.killWaitMs,
    },
    log,
  });
  if (sandbox.mode !== 'bwrap')
    log(`warning: the exec sandbox is unavailable here (${sandbox.reason ?? 'unknown reason'})`);
  log(
    `${worker.id} taking jobs from ${worker.queues.join(', ')} (concurrency ${concurrency}, pool ${pool}, workspace ${workspace})`,
  );
  let signals = 0;
  const stopped = new Promise<void>((resolve) => {
    const onSignal = (signal: string): void => {
      signals += 1;
      if (signals === 1) {
        log(`${signal}: draining (running nodes finish; send it again to hand them back)`);
        void worker.drain().then(resolve);
      } else if (signals === 2) {
        log(`${signal}: handing the running nodes back`);
        void worker.handBack().then(resolve);
      }
    };
    process.on('SIGTERM', onSignal);
    process.on('SIGINT', onSignal);
  });
  await stopped;
  const { taken, finished, refused } = worker.counts;
  log(`stopped: ${taken} taken, ${finished} finished, ${refused} refused`);
  return EXIT.ok;
}

function countOf(raw: string | undefined, flag: string, min: number): number | undefined {
  if (raw === undefined) return undefined;
  const value = Number(raw);
  if (raw.trim() === '' || !Number.isSafeInteger(value) || value < min || value > 1024)
    throw usageError(
      `Expected \`${flag}\` to be a whole number from ${min} to 1024, got \`${raw}\`.`,
    );
  return value;
}

/** The nodes' working directory: it must be a directory this worker can write, already there. */
function checkWorkspace(workspace: string): string {
  let why: string | undefined;
  try {
    if (!statSync(workspace).isDirectory()) why = 'is not a directory';
    else accessSync(workspace, constants.W_OK | constants.X_OK);
  } catch (error) {
    const code = (error as NodeJS.ErrnoException).code;
    why = code === 'ENOENT' ? 'does not exist' : `cannot be written (${code ?? String(error)})`;
  }
  if (why !== undefined)
    throw usageError(
      `The workspace \`${workspace}\` ${why}: \`--workspace\` names the nodes' working directory on this machine, which must exist and be writable.`,
    );
  return workspace;
}
