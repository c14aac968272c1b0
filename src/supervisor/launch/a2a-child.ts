import {
  CancelTaskRequest,
  TaskState,
  type SendMessageRequest,
  type Message,
  type StreamResponse,
  type Task,
} from '@a2a-js/sdk';
import type { Client } from '@a2a-js/sdk/client';
import type { ChildIo } from '../../child/index.js';
import {
  collect,
  connect,
  CONNECT_TIMEOUT_MS,
  outgoing,
  seedText,
  statusText,
} from './a2a-wire.js';
import { ControlChannel } from '../../child/control-channel.js';
import { FrameWriter } from '../../child/frame-writer.js';
import { Logger } from '../../child/logger.js';
import {
  outcomeOf,
  PROTOCOL_VERSION,
  type A2aPeerSpec,
  type ChildEvent,
  type Outcome,
  type SpawnPayload,
  type TerminalStatus,
  usageFromMetadata,
} from '../../protocol/index.js';

/** How long a `CancelTask` sent to a peer may take before the node ends without its answer. */
const CANCEL_WAIT_MS = 5000;

/**
 * A node whose work is done by a remote A2A agent: the `a2a` provider's child. It runs in the
 * supervisor's process behind the same in-memory channel as an in-process child and speaks
 * protocol v1, so the node has its place in the tree, its deadline, liveness and records like any
 * other. It sends the instruction to its one peer (`a2a_peers[0]`), reports the remote task's
 * progress as events, asks the run's people the peer's questions (`INPUT_REQUIRED` → `ask_human`,
 * the answer goes back on the task), cancels the remote task when cancelled, folds the usage an
 * arbor peer reports (`metadata["arbor/usage"]`) into the ledger, and ends with the remote
 * artifact as its result. The peer's answer is untrusted content: the node reports itself exposed,
 * so its parent reads the answer fenced. A peer that is down or refuses ends the node `failed`.
 */
export async function runA2aChild(io: ChildIo): Promise<number> {
  const writer = new FrameWriter(io.stdout);
  const log = new Logger(io.stderr);
  const channel = new ControlChannel(io.stdin, writer, log);
  let payload: SpawnPayload;
  try {
    payload = await channel.spawn;
  } catch (error) {
    writer.send({ type: 'failed', error: String(error), code: 'bad_spawn' });
    await writer.flush();
    return 2;
  }
  writer.send({ type: 'ready', protocol: PROTOCOL_VERSION });
  const peer = payload.a2a_peers[0];
  const outcome =
    peer === undefined
      ? outcomeOf('failed', null, 'an a2a node needs a peer, and this one was given none')
      : await delegate(peer, payload, channel, writer);
  writer.send({ type: 'result', outcome });
  await writer.flush();
  return 0;
}

async function delegate(
  peer: A2aPeerSpec,
  payload: SpawnPayload,
  channel: ControlChannel,
  writer: FrameWriter,
): Promise<Outcome> {
  const event = (reported: ChildEvent): void => {
    writer.event(reported);
  };
  let client: Client;
  try {
    client = await connect(
      peer,
      AbortSignal.any([channel.signal, AbortSignal.timeout(CONNECT_TIMEOUT_MS)]),
      payload.telemetry.traceparent,
    );
  } catch (error) {
    return outcomeOf('failed', null, `A2A peer \`${peer.name}\` cannot be reached: ${why(error)}`);
  }
  // Whatever the peer says from here on is untrusted content.
  event({
    type: 'trajectory',
    exposed: true,
    sensitive: false,
    risk: 0,
    exposedBy: `a2a:${peer.name}`,
  });
  const remote: Remote = { peer: peer.name, text: '' };
  const stop = new AbortController();
  const cancelling = { wanted: false, sent: false };
  // Called on cancel, and after each update: a cancel that came before the peer named its task
  // is sent as soon as it does.
  const cancel = (): void => {
    if (!cancelling.wanted) {
      cancelling.wanted = true;
      // The stream ends with the peer's CANCELED; a peer that does not say so is let go.
      setTimeout(() => {
        stop.abort();
      }, 2 * CANCEL_WAIT_MS).unref();
    }
    const id = remote.task?.id;
    if (id === undefined || cancelling.sent) return;
    cancelling.sent = true;
    void client
      .cancelTask(CancelTaskRequest.fromJSON({ id }), {
        signal: AbortSignal.timeout(CANCEL_WAIT_MS),
      })
      .catch(() => undefined);
  };
  channel.signal.addEventListener('abort', cancel, { once: true });
  let message = outgoing(seedText(payload), undefined);
  try {
    for (;;) {
      const state = await follow(client, message, remote, stop.signal, event, () => {
        if (cancelling.wanted) cancel();
      });
      if (state !== TaskState.TASK_STATE_INPUT_REQUIRED || channel.signal.aborted) break;
      const question = statusText(remote.task) || `${peer.name} needs input to go on.`;
      const reply = await askHuman(channel, writer, `${peer.name} asks: ${question}`);
      if (reply.isError) {
        cancel();
        return outcomeOf('failed', null, `The peer's question was not answered: ${reply.text}`);
      }
      message = outgoing(reply.text, remote.task);
    }
  } catch (error) {
    if (channel.signal.aborted)
      return outcomeOf('cancelled', null, `cancelled: ${String(channel.signal.reason)}`);
    return outcomeOf('failed', null, `A2A peer \`${peer.name}\` failed: ${why(error)}`);
  } finally {
    channel.signal.removeEventListener('abort', cancel);
  }
  reportUsage(remote.task, writer);
  return outcomeOfTask(remote, channel.signal, peer.name);
}

/** Sends one message and follows the task until it ends or waits for input; returns its state. */
async function follow(
  client: Client,
  message: Message,
  remote: Remote,
  signal: AbortSignal,
  event: (reported: ChildEvent) => void,
  afterUpdate: () => void,
): Promise<TaskState | undefined> {
  let state: TaskState | undefined;
  const request: SendMessageRequest = {
    tenant: '',
    message,
    configuration: undefined,
    metadata: undefined,
  };
  const stream = client.sendMessageStream(request, { signal });
  for await (const update of stream) {
    state = apply(update, remote, event) ?? state;
    afterUpdate();
    if (state !== undefined && (FINAL.has(state) || state === TaskState.TASK_STATE_INPUT_REQUIRED))
      break;
  }
  return state;
}

const EMPTY_ARTIFACT: Task['artifacts'][number] = {
  artifactId: '',
  name: '',
  description: '',
  parts: [],
  metadata: undefined,
  extensions: [],
};

/** What is known of the remote task: the task, its answer so far, whether it answered with a message. */
interface Remote {
  /** The peer's name, in every event about its task. */
  peer: string;
  task?: Task;
  text: string;
  message?: boolean;
}

const FINAL = new Set([
  TaskState.TASK_STATE_COMPLETED,
  TaskState.TASK_STATE_FAILED,
  TaskState.TASK_STATE_CANCELED,
  TaskState.TASK_STATE_REJECTED,
]);

/** A task state's name (`TASK_STATE_WORKING`); a number no enum member has, as that number. */
function stateName(state: TaskState | undefined): string {
  return TaskState[state ?? 0] ?? String(state);
}

/** Folds one update into what is known of the remote task; returns its state when it says one. */
function apply(
  update: StreamResponse,
  remote: Remote,
  event: (reported: ChildEvent) => void,
): TaskState | undefined {
  const payload = update.payload;
  switch (payload?.$case) {
    case 'task':
      remote.task = payload.value;
      event({
        type: 'a2a.task',
        peer: remote.peer,
        taskId: payload.value.id,
        state: stateName(payload.value.status?.state),
      });
      collect(remote, payload.value.artifacts);
      return payload.value.status?.state;
    case 'statusUpdate': {
      const status = payload.value.status;
      const progress = payload.value.metadata?.['arbor/event'] as { type?: unknown } | undefined;
      if (remote.task !== undefined && status !== undefined) {
        const changed = remote.task.status?.state !== status.state || status.message !== undefined;
        if (changed) remote.task.status = status;
        remote.task.metadata = { ...remote.task.metadata, ...payload.value.metadata };
      }
      event({
        type: 'a2a.status',
        peer: remote.peer,
        state: stateName(status?.state),
        ...(typeof progress?.type === 'string' ? { remoteEvent: progress.type } : {}),
      });
      return status?.state;
    }
    case 'artifactUpdate': {
      const artifact = payload.value.artifact;
      if (artifact === undefined) return undefined;
      // A chunk of an artifact being streamed joins what came before; a whole one replaces it.
      const before = payload.value.append ? remote.text : '';
      collect(remote, [artifact]);
      if (payload.value.append) remote.text = `${before}${remote.text}`;
      return undefined;
    }
    case 'message': {
      // A peer may answer with a message and no task: that is its whole answer.
      collect(remote, [{ ...EMPTY_ARTIFACT, parts: payload.value.parts }]);
      remote.message = true;
      return TaskState.TASK_STATE_COMPLETED;
    }
    case undefined:
      return undefined;
  }
}

function outcomeOfTask(remote: Remote, signal: AbortSignal, peer: string): Outcome {
  if (remote.message === true && remote.task === undefined)
    return outcomeOf('completed', remote.text, undefined);
  const state = remote.task?.status?.state;
  const said = statusText(remote.task);
  if (state === TaskState.TASK_STATE_COMPLETED)
    return outcomeOf('completed', remote.text || said, undefined);
  const status: TerminalStatus =
    state === TaskState.TASK_STATE_CANCELED || signal.aborted
      ? 'cancelled'
      : state === TaskState.TASK_STATE_REJECTED
        ? 'refused'
        : 'failed';
  const reason =
    state === undefined
      ? `A2A peer \`${peer}\` ended the stream without saying how the task ended`
      : `A2A peer \`${peer}\` ended the task ${TaskState[state]}${said === '' ? '' : `: ${said}`}`;
  return outcomeOf(status, remote.text === '' ? null : remote.text, reason);
}

/**
 * Usage an arbor peer reports on its task (`metadata["arbor/usage"]`), into this node's ledger,
 * with its cache and reasoning splits. The peer's own cost is kept as it is (it priced its calls
 * with its prices); without one, the tokens go up unpriced, since the peer's models are unknown here.
 */
function reportUsage(task: Task | undefined, writer: FrameWriter): void {
  const usage = usageFromMetadata(task?.metadata?.['arbor/usage']);
  if (usage !== undefined) writer.send({ type: 'usage', ...usage });
}

async function askHuman(
  channel: ControlChannel,
  writer: FrameWriter,
  question: string,
): Promise<{ text: string; isError: boolean }> {
  const reply = await channel.toolReplies.request(
    'ask_human',
    (id) => {
      writer.send({ type: 'tool_request', id, name: 'ask_human', args: { question } });
    },
    { signal: channel.signal },
  );
  const result = reply.result;
  const text =
    typeof result === 'string'
      ? result
      : typeof (result as { answer?: unknown } | null)?.answer === 'string'
        ? (result as { answer: string }).answer
        : JSON.stringify(result);
  return { text, isError: reply.is_error };
}

function why(error: unknown): string {
  return error instanceof Error ? error.message : String(error);
}
