import { createModelClient } from '../intel/index.js';
import { CHILD_POOLED_ENV, CHILD_WAITING_MSG } from './pool-signals.js';
import { rehearseSpawn } from './rehearse.js';
import { runChild } from './run-child.js';
import { setChildV8FlagsAtFirstFetch } from './v8-flags.js';
import { warmHttp } from './warm-http.js';
import { warmUp } from './warm-up.js';

/** How a child process was started: from the one-file bundle, or from a V8 start-up snapshot. */
export type ChildEntryKind = 'bundle' | 'snapshot';

/**
 * The child's first-time work that needs nothing of the process it runs in (see `warmUp`). A
 * snapshot runs it while it is built, so a child started from the snapshot begins with it done.
 */
export function prepareChild(): void {
  warmUp((config) => createModelClient(config, { mode: 'one-shot' }));
}

/**
 * Runs a child process to its end. Stdout is the protocol channel, so console output of any kind
 * is sent to stderr before anything else runs. The child exits when its input ends or its parent
 * dies. Its V8 flags are set at its first `fetch` (an MCP server reached over HTTP; its model
 * client does not use `fetch`), before any WebAssembly is compiled (see
 * `setChildV8FlagsAtFirstFetch`). Everything that touches the process (its environment, its
 * streams, timers) happens here, never while a snapshot is built.
 */
export async function startChild(entry: ChildEntryKind): Promise<never> {
  const v8Flags = setChildV8FlagsAtFirstFetch();

  for (const method of ['log', 'info', 'debug', 'warn'] as const) {
    console[method] = (...args: unknown[]) => {
      console.error(...args);
    };
  }

  const parentPid = process.ppid;
  // Node has no parent-death signal: poll for re-parenting, so an orphan never outlives its parent.
  setInterval(() => {
    if (process.ppid !== parentPid) process.exit(1);
  }, 500).unref();

  // Input closing means the supervisor is gone or done with us: stop promptly, even if some work
  // ignores its cancellation.
  process.stdin.once('close', () => {
    setTimeout(() => process.exit(1), 2_000).unref();
  });

  // Compile what the first frames will need, then tell whoever started us (a pool of idle
  // children, say) that we are loaded and waiting. A pooled child has time to spare before it is
  // taken, so it also makes one request through its model client's HTTP transport; a cold child
  // would only move that cost before its `ready`.
  const pooled = process.env[CHILD_POOLED_ENV] === '1';
  Reflect.deleteProperty(process.env, CHILD_POOLED_ENV);
  // A snapshot was built with the warm-up done: it holds the warm-up's objects but not what
  // running it taught V8 (type feedback, compiled code), so a pooled child, which has time to
  // spare, runs it again.
  if (entry === 'bundle' || pooled) prepareChild();
  const httpWarm = pooled && (await warmHttp());
  // And it runs its path to `ready` once on a made-up payload, so the real one finds that code
  // compiled.
  const rehearsed = pooled && (await rehearseSpawn());
  process.stderr.write(
    `${JSON.stringify({ msg: CHILD_WAITING_MSG, entry, http_warm: httpWarm, rehearsed, v8_flags: v8Flags })}\n`,
  );

  const code = await runChild(
    { stdin: process.stdin, stdout: process.stdout, stderr: process.stderr },
    {
      connectModel: (config, options) => createModelClient(config, options),
      extraCaFile: process.env.NODE_EXTRA_CA_CERTS,
    },
  );
  process.exit(code);
}
