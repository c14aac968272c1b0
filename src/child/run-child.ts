import { accessSync, constants } from 'node:fs';
import type { Readable, Writable } from 'node:stream';
import type { ModelClient, RateLimitReport } from '../intel/model.js';
import {
  ARBOR_VERSION,
  ArborError,
  isArborError,
  PROTOCOL_VERSION,
  toErrorPayload,
  type IntelConfig,
} from '../protocol/index.js';
import type { ChildContext } from './child-context.js';
import { buildChildTools, type ChildTools } from './child-tools.js';
import { ControlChannel } from './control-channel.js';
import { FrameWriter } from './frame-writer.js';
import { Logger } from './logger.js';
import { intelLimitsFrame } from './rate-limit-frames.js';
import { runAgent } from './run-agent.js';
import { runTurnWorker } from './run-turn-worker.js';
import { ReplayModel } from './replay-model.js';
import { recordedTools } from './replay-tools.js';
import { allowedTools, isToolAllowed } from '../authority/index.js';

export interface ChildIo {
  stdin: Readable;
  stdout: Writable;
  stderr: Writable;
}

export interface ChildDeps {
  /** Builds the model client; long-lived (warm) sessions wait out an outage instead of failing. */
  connectModel(
    config: IntelConfig,
    options: {
      mode: 'one-shot' | 'long-lived';
      onAttemptFailure?: (endpoint: number, kind: string, ms: number) => void;
      onRateLimit?: (report: RateLimitReport) => void;
    },
  ): ModelClient;
  /** The extra CA file the process was started with (`NODE_EXTRA_CA_CERTS`), if any. */
  extraCaFile?: string | undefined;
  /** Where paths resolve and commands run (default: the process's working directory). */
  cwd?: string;
}

/** Process exit codes of a child (the supervisor reads frames, not these; they help debugging). */
const CHILD_EXIT = { ok: 0, internal: 1, badSpawn: 2, intel: 4, mcp: 6 } as const;

/** A child up to its `ready`: its context, and the tools to close when it ends. */
export interface OpenedChild {
  context: ChildContext;
  tools: ChildTools;
}

/**
 * A child's whole life, in the order of the protocol's lifecycle (docs/protocol.md): read the
 * payload, check the TLS anchor, start answering control frames, connect intelligence, say
 * `ready`, run the role, end with exactly one terminal frame. Returns the process exit code.
 */
export async function runChild(io: ChildIo, deps: ChildDeps): Promise<number> {
  const opened = await openChild(io, deps);
  if (typeof opened === 'number') return opened;
  const { context, tools } = opened;
  const { payload, writer, log } = context;
  writer.send({ type: 'ready', protocol: PROTOCOL_VERSION });
  log.log('info', 'child.ready', { role: payload.role, warm: payload.warm, depth: payload.depth });
  try {
    if (payload.role === 'turn' && payload.turn !== undefined)
      await runTurnWorker(context, payload.turn);
    else await runAgent(context);
  } catch (error) {
    const code =
      isArborError(error) && error.code.startsWith('intel_')
        ? CHILD_EXIT.intel
        : CHILD_EXIT.internal;
    await tools.close();
    return fail(writer, error, code);
  }
  await tools.close();
  await writer.flush();
  return CHILD_EXIT.ok;
}

/**
 * Everything a child does before it says `ready`: read and check the payload, connect
 * intelligence, build the tools. Returns the child's context, or the exit code of a child that
 * failed (its `failed` frame already sent).
 */
export async function openChild(io: ChildIo, deps: ChildDeps): Promise<OpenedChild | number> {
  const writer = new FrameWriter(io.stdout);
  const log = new Logger(io.stderr);
  const channel = new ControlChannel(io.stdin, writer, log);

  let payload;
  try {
    payload = await channel.spawn;
  } catch (error) {
    return fail(writer, error, CHILD_EXIT.badSpawn);
  }
  log.bind(payload.telemetry);

  if (payload.tls_ca !== undefined) {
    const problem = checkCa(payload.tls_ca, deps.extraCaFile);
    if (problem !== undefined)
      return fail(writer, new ArborError('config', problem), CHILD_EXIT.badSpawn);
  }

  let model: ModelClient;
  try {
    model = deps.connectModel(payload.intelligence, {
      mode: payload.warm ? 'long-lived' : 'one-shot',
      // Each failed attempt is reported (endpoint index, kind and duration, never its URL): metrics
      // count and time them.
      onAttemptFailure: (endpoint, kind, ms) => {
        writer.event({ type: 'model.error', endpoint, kind, ms });
      },
      // What the provider says of its limits, so the supervisor paces the whole tree before a 429.
      onRateLimit: (report) => {
        writer.send(intelLimitsFrame(report));
      },
    });
  } catch (error) {
    return fail(writer, error, CHILD_EXIT.intel);
  }
  // A replayed node's answers come from its record (see `ReplayModel`); its intelligence only
  // after it goes live.
  const replay = payload.replay;
  const replayModel =
    replay === undefined
      ? undefined
      : new ReplayModel(replay, model, (divergence) => {
          writer.event({ type: 'replay.divergence', step: divergence.call, ...divergence });
        });
  if (replayModel !== undefined) model = replayModel;
  const recorded = recordedTools(payload, deps.cwd ?? process.cwd());
  if (recorded !== undefined && replayModel !== undefined)
    recorded.isLive = () => replayModel.isLive;
  model.onHealth((event) => {
    writer.send({
      type: 'intel_health',
      all_down: event.allDown,
      ...(event.active === undefined ? {} : { active: event.active }),
    });
  });

  let tools: ChildTools;
  try {
    tools = await buildChildTools(payload, channel, writer, log, {
      cwd: deps.cwd ?? process.cwd(),
      signal: channel.signal,
      version: ARBOR_VERSION,
      ...(recorded === undefined ? {} : { recorded }),
    });
  } catch (error) {
    return fail(
      writer,
      error,
      isArborError(error, 'mcp_unavailable') ? CHILD_EXIT.mcp : CHILD_EXIT.badSpawn,
    );
  }
  const context: ChildContext = {
    payload,
    channel,
    writer,
    log,
    model,
    tools: tools.guard,
    offerFinish: isToolAllowed('finish', allowedTools(payload)),
    capture: tools.capture,
  };

  return { context, tools };
}

async function fail(writer: FrameWriter, error: unknown, exitCode: number): Promise<number> {
  const wire = toErrorPayload(error);
  writer.send({ type: 'failed', error: wire.message, code: wire.code });
  await writer.flush();
  return exitCode;
}

/**
 * The extra CA must be installed before the first dial, process-wide. A process child is started
 * with `NODE_EXTRA_CA_CERTS` pointing at it, which Node loads at start-up; this checks that the
 * anchor the payload names is the one that was loaded, and that it is readable.
 */
function checkCa(path: string, loaded: string | undefined): string | undefined {
  if (loaded !== path)
    return `tls_ca ${path} was not installed at start-up (NODE_EXTRA_CA_CERTS is ${loaded ?? 'unset'})`;
  try {
    accessSync(path, constants.R_OK);
  } catch {
    return `tls_ca ${path} cannot be read`;
  }
  return undefined;
}
