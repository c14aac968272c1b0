import type { IncomingMessage, ServerResponse } from 'node:http';
import type { Dialect } from '../../protocol/index.js';
import { anthropicMessage, anthropicStreamEvents } from './anthropic-reply.js';
import { anthropicExtras, type AnthropicRules } from './anthropic-rules.js';
import { inspectRequest } from './inspect-request.js';
import type { OpenAiPromptCache } from './openai-prompt-cache.js';
import { openAiCompletion, openAiStreamEvents } from './openai-reply.js';
import { openAiUsage } from './openai-rules.js';
import { providerRefusal } from './provider-refusal.js';
import { playFault } from './play-fault.js';
import { requestTokens, type FakeRateLimiter } from './rate-limit.js';
import type { Playbook } from './playbook.js';
import { readJsonBody } from './read-json-body.js';
import type { RecordedRequest } from './recorded-request.js';
import { responsesBody, responsesStreamEvents } from './responses-reply.js';
import type { ResponsesRules } from './responses-rules.js';
import { scriptedAnswer } from './scripted-answer.js';
import { selectStep } from './select-step.js';
import { sendError, sendEvents, sendJson, waitWhileConnected } from './send.js';

/** The server state a model request reads and updates. */
export interface ScriptState {
  readonly playbook: Playbook;
  /** Requests per `script:step`, for `faults` lists. */
  readonly landings: Map<string, number>;
  /** The playbook's `rate_limit`, counted across requests; absent when it has none. */
  readonly rateLimiter: FakeRateLimiter | undefined;
  /** The prompts OpenAI-dialect requests have sent, for cache reads. */
  readonly openAiCache: OpenAiPromptCache;
  /** Extended thinking and prompt caching, as Anthropic plays them. */
  readonly anthropic: AnthropicRules;
  nextCallId(): string;
  /** The Responses API's rules and what they remember across requests (issued reasoning). */
  readonly responses: ResponsesRules;
}

/** Answers one `POST` to a model endpoint from the playbook, and fills in its record. */
export async function answerRequest(
  state: ScriptState,
  dialect: Dialect,
  request: IncomingMessage,
  response: ServerResponse,
  record: RecordedRequest,
): Promise<void> {
  const fail = (status: number, message: string, errorBody?: unknown): void => {
    record.status = status;
    record.error = message;
    if (errorBody === undefined) sendError(response, dialect, status, message);
    else sendJson(response, status, errorBody);
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
  record.stream = inspected.stream;
  record.tool_results = inspected.toolResults;
  const refusal = providerRefusal(state, dialect, body.value);
  if (refusal !== undefined) {
    fail(refusal.status, refusal.message, refusal.body);
    return;
  }
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
  const rate = state.rateLimiter?.take(dialect, requestTokens(step, body.chars), Date.now());
  if (rate !== undefined && !rate.ok) {
    record.status = 429;
    record.fault = 'rate_limit';
    sendJson(response, 429, rate.body, rate.headers);
    return;
  }
  const headers = rate?.headers ?? {};
  if (!(await waitWhileConnected(response, step.delay_ms ?? 0))) return;
  if (fault !== undefined && !(fault.kind === 'cut' && inspected.stream)) {
    playFault(fault, dialect, inspected.stream, request, response, record);
    return;
  }
  const answer = scriptedAnswer(step, inspected, record.seq, body.chars, () => state.nextCallId());
  const usage =
    dialect === 'openai' ? openAiUsage(answer, step, body.value, state.openAiCache) : undefined;
  record.status = 200;
  const extras =
    dialect === 'openai-responses' ? state.responses.extras(body.value, answer) : undefined;
  const thinking =
    dialect === 'anthropic' ? anthropicExtras(state, step, inspected, body.value) : undefined;
  if (inspected.stream) {
    const events =
      extras !== undefined
        ? responsesStreamEvents(answer, extras)
        : dialect === 'openai'
          ? openAiStreamEvents(answer, inspected.includeUsage, usage)
          : anthropicStreamEvents(answer, thinking);
    if (fault === undefined) {
      sendEvents(response, events, { headers });
      return;
    }
    // A stream cut mid-answer: the first half of its events, then the connection drops.
    record.fault = 'cut';
    sendEvents(response, events.slice(0, Math.max(1, Math.floor(events.length / 2))), {
      cut: true,
    });
  } else if (extras !== undefined) {
    sendJson(response, 200, responsesBody(answer, extras), headers);
  } else if (dialect === 'openai') {
    sendJson(response, 200, openAiCompletion(answer, usage), headers);
  } else {
    sendJson(response, 200, anthropicMessage(answer, thinking), headers);
  }
}
