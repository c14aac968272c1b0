import type { z } from 'zod';
import {
  formatIssues,
  type Endpoint,
  type ReasoningTrace,
  type Sampling,
  type Usage,
} from '../protocol/index.js';
import { AttemptFailure } from './attempt-failure.js';
import type { FinishReason, ModelDelta, ModelRequest, ModelToolCall } from './model.js';
import type { SseEvent } from './sse-events.js';
import type { ToolNames } from './wire-names.js';

/** What a dialect needs to write one call. */
export interface DialectCall {
  request: ModelRequest;
  /** The model this endpoint is asked for. */
  model: string;
  /** The config's sampling options with the endpoint's and then the request's applied over them. */
  sampling: Sampling;
  stream: boolean;
  names: ToolNames;
  /** The endpoint's settings (its URL, output-cap field, prompt cache), never its credential. */
  endpoint: Readonly<Omit<Endpoint, 'api_key'>>;
}

/** The token counts a dialect reads from a response (see `Usage` for what each one holds). */
export type DecodedUsage = Omit<Usage, 'cost_usd'>;

/** A dialect-neutral answer, before the client adds cost and the endpoint index. */
export interface DecodedResponse {
  text: string;
  toolCalls: ModelToolCall[];
  finishReason: FinishReason;
  /** `undefined` when the endpoint did not report usage. */
  usage: DecodedUsage | undefined;
  /** The model the server says answered. */
  model: string | undefined;
  /** What a reasoning model thought, verbatim, when the provider sent it back to be returned. */
  reasoning?: ReasoningTrace;
}

/** Turns the server-sent events of one streamed answer into deltas and, at the end, an answer. */
export interface StreamDecoder {
  /** Feeds one event; returns the text and tool-call deltas it carried. Throws `AttemptFailure`. */
  push(event: SseEvent): ModelDelta[];
  /** Whether the stream has said it is finished. */
  readonly isComplete: boolean;
  /** The whole answer; call once the stream is complete. */
  finish(): DecodedResponse;
}

/** One wire dialect: how to write a request and read what comes back. */
export interface DialectAdapter {
  /** Path appended to the endpoint's base URL. */
  readonly path: string;
  /** A human name for the response shape, used in error messages. */
  readonly responseName: string;
  /** The headers that carry the credential (and the API version, where the dialect has one). */
  authHeaders(apiKey: string | undefined): Record<string, string>;
  buildBody(call: DialectCall): unknown;
  /** Decodes an unstreamed response body (already JSON-decoded). Throws `AttemptFailure`. */
  decodeResponse(body: unknown, names: ToolNames): DecodedResponse;
  createStreamDecoder(names: ToolNames): StreamDecoder;
}

/** The `bad_response` failure for a body that failed its schema. */
export function notTheShape(what: string, error: z.ZodError): AttemptFailure {
  return new AttemptFailure(
    'bad_response',
    `the body is not ${what}: ${formatIssues(error.issues)}`,
  );
}
