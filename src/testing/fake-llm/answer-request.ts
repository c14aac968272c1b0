import type { IncomingMessage, ServerResponse } from 'node:http';
import type { Dialect } from '../../protocol/index.js';
import { anthropicMessage, anthropicStreamEvents } from './anthropic-reply.js';
import { anthropicExtras, type AnthropicRules } from './anthropic-rules.js';
import { inspectRequest } from './inspect-request.js';
import { openAiCompletion, openAiStreamEvents } from './openai-reply.js';
import { playFault } from './play-fault.js';
import type { Playbook } from './playbook.js';
import { readJsonBody } from './read-json-body.js';
import type { RecordedRequest } from './recorded-request.js';
import { scriptedAnswer } from './scripted-answer.js';
import { selectStep } from './select-step.js';
import { sendError, sendEvents, sendJson, waitWhileConnected } from './send.js';

/** The server state a model request reads and updates. */
export interface ScriptState {
  readonly playbook: Playbook;
  /** Requests per `script:step`, for `faults` lists. */
  readonly landings: Map<string, number>;
  /** Extended thinking and prompt caching, as Anthropic plays them. */
  readonly anthropic: AnthropicRules;
  nextCallId(): string;
}

/** Answers one `POST` to a model endpoint from the playbook, and fills in its record. */
export async function answerRequest(
  state: ScriptState,
  dialect: Dialect,
  request: IncomingMessage,
  response: ServerResponse,
  record: RecordedRequest,
): Promise<void> {
  const fail = (status: number, message: string): void => {
    record.status = status;
    record.error = message;
    sendError(response, dialect, status, message);
  };
  const body = await readJsonBody(request);
  if (!body.ok) {
    fail(body.status, `Invalid request: ${body.reason}`);
    return;
  }
  record.body = body.value;
  const inspection = inspectRequest(dialect, body.value);
  if (!inspection.ok) {
    fail(400, `Invalid request: ${inspection.reason}`);
    return;
  }
  const inspected = inspection.request;
  const refusal = dialect === 'anthropic' ? state.anthropic.refusal(body.value) : undefined;
  if (refusal !== undefined) {
    fail(400, refusal);
    return;
  }
  record.stream = inspected.stream;
  record.tool_results = inspected.toolResults;
  const selection = selectStep(state.playbook, inspected, state.landings);
  if (selection.scriptIndex !== undefined) {
    const name = state.playbook.scripts[selection.scriptIndex]?.name ?? null;
    record.script = { index: selection.scriptIndex, name };
  }
  if (!selection.ok) {
    fail(500, `arbor mock-llm: ${selection.reason}.`);
    return;
  }
  record.step = selection.stepIndex;
  const { step, fault } = selection;
  if (!(await waitWhileConnected(response, step.delay_ms ?? 0))) return;
  if (fault !== undefined && !(fault.kind === 'cut' && inspected.stream)) {
    playFault(fault, dialect, inspected.stream, request, response, record);
    return;
  }
  const answer = scriptedAnswer(step, inspected, record.seq, body.chars, () => state.nextCallId());
  record.status = 200;
  const extras =
    dialect === 'anthropic' ? anthropicExtras(state, step, inspected, body.value) : undefined;
  if (inspected.stream) {
    const events =
      dialect === 'openai'
        ? openAiStreamEvents(answer, inspected.includeUsage)
        : anthropicStreamEvents(answer, extras);
    if (fault === undefined) {
      sendEvents(response, events);
      return;
    }
    // A stream cut mid-answer: the first half of its events, then the connection drops.
    record.fault = 'cut';
    sendEvents(response, events.slice(0, Math.max(1, Math.floor(events.length / 2))), {
      cut: true,
    });
  } else if (dialect === 'openai') {
    sendJson(response, 200, openAiCompletion(answer));
  } else {
    sendJson(response, 200, anthropicMessage(answer, extras));
  }
}
