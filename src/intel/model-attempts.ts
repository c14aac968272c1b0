import { SseAnswerStream, WholeAnswerStream, type AnswerStream } from './answer-stream.js';
import type { AttemptDeadline } from './attempt-deadline.js';
import { AttemptFailure } from './attempt-failure.js';
import { decodeJson } from './decode-json.js';
import type { DecodedResponse } from './dialect.js';
import { MAX_RESPONSE_BYTES, postJson, readText } from './http-exchange.js';
import type { HttpAnswer } from './http-transport.js';
import type { ModelDelta } from './model.js';
import type { PoolEndpoint } from './pool-endpoint.js';
import type { ToolNames } from './wire-names.js';

/** One request, written for one endpoint. */
export interface WireCall {
  body: string;
  names: ToolNames;
  /** Extra headers of this call (`traceparent`). */
  headers: Readonly<Record<string, string>>;
  now: () => number;
}

async function decodeWhole(
  endpoint: PoolEndpoint,
  response: HttpAnswer,
  names: ToolNames,
): Promise<DecodedResponse> {
  const { text, truncated } = await readText(response, MAX_RESPONSE_BYTES);
  if (truncated) {
    throw new AttemptFailure(
      'bad_response',
      `the answer is larger than ${MAX_RESPONSE_BYTES} bytes`,
    );
  }
  const decoded = decodeJson(text);
  if (!decoded.ok) throw new AttemptFailure('bad_response', `the body is ${decoded.reason}`);
  return endpoint.adapter.decodeResponse(decoded.value, names);
}

/** Posts one call; every response's headers (rate limits) reach the endpoint's health. */
function post(
  endpoint: PoolEndpoint,
  headers: Readonly<Record<string, string>>,
  deadline: AttemptDeadline,
  call: WireCall,
): Promise<HttpAnswer> {
  return postJson(
    endpoint.url,
    { ...headers, ...call.headers },
    call.body,
    deadline.signal,
    call.now,
    (received) => {
      endpoint.observeHeaders(received, call.now());
    },
  );
}

/** Sends an unstreamed call and reads the whole answer. */
export async function fetchAnswer(
  endpoint: PoolEndpoint,
  deadline: AttemptDeadline,
  call: WireCall,
): Promise<DecodedResponse> {
  const response = await post(endpoint, endpoint.headers, deadline, call);
  return decodeWhole(endpoint, response, call.names);
}

/** A stream that has produced its first deltas, and the deadline that still guards it. */
export interface OpenedStream {
  first: ModelDelta[];
  answer: AnswerStream;
  deadline: AttemptDeadline;
}

/**
 * Sends a streamed call and reads until the first deltas arrive (or the answer completes). Only
 * then is the endpoint committed to: a stream that breaks before saying anything fails over like
 * any other failed attempt.
 */
export async function openAnswerStream(
  endpoint: PoolEndpoint,
  deadline: AttemptDeadline,
  call: WireCall,
): Promise<OpenedStream> {
  const response = await post(endpoint, endpoint.streamHeaders, deadline, call);
  const type = response.headers.get('content-type') ?? '';
  let answer: AnswerStream;
  if (type.includes('text/event-stream')) {
    const decoder = endpoint.adapter.createStreamDecoder(call.names);
    answer = new SseAnswerStream(response.body, decoder, () => {
      deadline.touch();
    });
  } else {
    answer = new WholeAnswerStream(await decodeWhole(endpoint, response, call.names));
  }
  const first = await answer.read();
  deadline.adopt();
  return { first, answer, deadline };
}
