import { accessSync, constants, statSync } from 'node:fs';
import path from 'node:path';
import { loadConfigFile, resolveMcpServers, type ConfigFile } from '../config/index.js';
import {
  FleetPublicKey,
  RETIRED_FLEET_KEY_VARIABLE,
  type FleetIdentity,
} from '../fleet/fleet-identity.js';
import { privateKeyFile, readPrivateKeyFile } from '../fleet/key-file.js';
import { checkName, queuesOf } from '../fleet/queue-names.js';
import { fleetRedisUrl } from '../fleet/redis-url.js';
import { EXIT, type ExitCode } from '../runtime/index.js';
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
  --key FILE           this worker's private key (\`arbor worker keygen\`; mode 0600, or it is
                       refused); else ARBOR_FLEET_PRIVATE_KEY_FILE, else [queue.worker] key
  --supervisor-key KEY a supervisor this worker serves, its public key as \`ed25519:…\`
                       (repeat for several; [[queue.supervisor]] public_key)
  --config FILE        [queue], [queue.worker], and the [[mcp.server]]s this worker may start:
                       a node gets only servers named here, started as written here

  keygen [--out FILE]  make a key pair and print its public key (\`arbor worker keygen --help\`)

Every worker has a key pair of its own, and the supervisor must admit its public key
([[queue.admit]] in the supervisor's config). A job or control record not signed by one of the
supervisors given is refused; this worker signs everything it sends up with its key, and runs a
node only once the supervisor has bound that node to it. Credentials a node needs (the model's
key, MCP servers' tokens) come from this worker's environment, never from Redis.

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
  key: { type: 'string' },
  'supervisor-key': { type: 'string', multiple: true },
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
  const { identity, supervisors } = workerKeys(values.key, values['supervisor-key'], table, env);
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
    identity,
    supervisors,
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
    `${worker.id} (key ${identity.publicKey.id}) taking jobs from ${worker.queues.join(', ')} (concurrency ${concurrency}, pool ${pool}, workspace ${workspace})`,
  );
  let signals = 0;
  const stopped = new Promise<ExitCode>((resolve) => {
    // Refused by a supervisor it serves: its key was revoked (or never admitted). It drains, and
    // ends with exit 2 (its configuration is at fault), so a service manager does not loop on it.
    void worker.notAdmitted.then((why) => {
      if (signals > 0) return;
      log(
        `${why}: draining. Admit its public key ${identity.publicKey.text} in the supervisor's [[queue.admit]] and start it again.`,
      );
      void worker.drain().then(() => {
        resolve(EXIT.usage);
      });
    });
    const onSignal = (signal: string): void => {
      signals += 1;
      if (signals === 1) {
        log(`${signal}: draining (running nodes finish; send it again to hand them back)`);
        void worker.drain().then(() => {
          resolve(EXIT.ok);
        });
      } else if (signals === 2) {
        log(`${signal}: handing the running nodes back`);
        void worker.handBack().then(() => {
          resolve(EXIT.ok);
        });
      }
    };
    process.on('SIGTERM', onSignal);
    process.on('SIGINT', onSignal);
  });
  const code = await stopped;
  const { taken, finished, refused } = worker.counts;
  log(`stopped: ${taken} taken, ${finished} finished, ${refused} refused`);
  return code;
}

/**
 * This worker's key pair and the supervisors it serves, checked before anything connects: a key
 * file others may read, a public key that is not one, or no supervisor at all is refused (exit 2).
 */
function workerKeys(
  flag: string | undefined,
  supervisorFlags: string[] | undefined,
  table: ConfigFile['queue'],
  env: NodeJS.ProcessEnv,
): { identity: FleetIdentity; supervisors: FleetPublicKey[] } {
  const file = privateKeyFile({ flag, config: table?.worker?.key }, env);
  if (file === undefined) {
    const retired = env[RETIRED_FLEET_KEY_VARIABLE];
    throw usageError(
      `${retired === undefined || retired === '' ? 'A worker needs a private key of its own' : `\`${RETIRED_FLEET_KEY_VARIABLE}\` is set, but the fleet's shared key is retired: a worker needs a key pair of its own`}: make one with \`arbor worker keygen --out FILE\`, give it with \`--key FILE\` (or ARBOR_FLEET_PRIVATE_KEY_FILE, or [queue.worker] key = "file:FILE"), and admit its public key in the supervisor's [[queue.admit]]. See docs/scale-out.md.`,
    );
  }
  const texts = [
    ...(supervisorFlags ?? []),
    ...(table?.supervisor ?? []).map((entry) => entry.public_key),
  ];
  if (texts.length === 0)
    throw usageError(
      "A worker serves the supervisors it is given: name each one's public key with `--supervisor-key ed25519:…` or `[[queue.supervisor]] public_key` in `--config`.",
    );
  const supervisors = texts.map((text) => {
    try {
      return FleetPublicKey.parse(text);
    } catch (error) {
      throw usageError(
        `\`--supervisor-key\`: ${error instanceof Error ? error.message : String(error)}`,
        error,
      );
    }
  });
  return { identity: readPrivateKeyFile(file), supervisors };
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
