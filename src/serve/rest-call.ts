import type { Context } from 'hono';
import { A2A_CONTENT_TYPE, StreamResponse, TaskState, taskStateFromJSON } from '@a2a-js/sdk';
import {
  ContentTypeNotSupportedError,
  RequestMalformedError,
  restStatusFor,
  toRestErrorBody,
} from '@a2a-js/sdk/errors';
import type { A2ARequestHandler } from '@a2a-js/sdk/server';
import type { A2ACall } from './call-context.js';
import { sseAnswer } from './sse-answer.js';

/**
 * One request on A2A's HTTP+JSON binding: what its route reads of it (ids in the path, query
 * parameters, the JSON body, each checked) and how it streams its answer.
 */
export class RestCall {
  readonly handler: A2ARequestHandler;
  readonly #c: Context;
  readonly #call: A2ACall;
  readonly #ids: readonly string[];

  constructor(c: Context, handler: A2ARequestHandler, call: A2ACall, ids: RegExpExecArray | null) {
    this.#c = c;
    this.handler = handler;
    this.#call = call;
    this.#ids = ids?.slice(1) ?? [];
  }

  get context(): A2ACall['context'] {
    return this.#call.context;
  }

  /** The `n`th id of the path, as the client meant it (percent-decoded). */
  id(n: number): string {
    const raw = this.#ids[n] ?? '';
    try {
      return decodeURIComponent(raw);
    } catch {
      throw new RequestMalformedError(`Expected a percent-encoded id in the path, got \`${raw}\`.`);
    }
  }

  query(name: string): string | undefined {
    return this.#c.req.query(name);
  }

  /** A query parameter that is a whole number, or undefined when absent. */
  integer(name: string): number | undefined {
    const text = this.query(name);
    if (text === undefined || text === '') return undefined;
    if (!/^\d{1,9}$/.test(text))
      throw new RequestMalformedError(
        `Expected \`${name}\` to be a non-negative integer, got \`${text}\`.`,
      );
    return Number(text);
  }

  /** A query parameter naming a task state (`TASK_STATE_WORKING`, or its number); absent: any. */
  state(name: string): TaskState {
    const text = this.query(name);
    if (text === undefined || text === '') return TaskState.TASK_STATE_UNSPECIFIED;
    const state = taskStateFromJSON(/^\d+$/.test(text) ? Number(text) : text);
    if (state === TaskState.UNRECOGNIZED)
      throw new RequestMalformedError(
        `Expected \`${name}\` to be a task state such as TASK_STATE_WORKING, got \`${text}\`.`,
      );
    return state;
  }

  /** The request's JSON object (an empty body is `{}`). */
  async body(): Promise<Record<string, unknown>> {
    const type = this.#c.req.header('content-type');
    const media = type?.split(';', 1)[0]?.trim().toLowerCase();
    if (media !== undefined && media !== 'application/json' && media !== A2A_CONTENT_TYPE)
      throw new ContentTypeNotSupportedError(
        `Expected Content-Type application/json or ${A2A_CONTENT_TYPE}, got \`${type}\`.`,
      );
    const text = await this.#c.req.text();
    if (text.trim() === '') return {};
    let body: unknown;
    try {
      body = JSON.parse(text);
    } catch (error) {
      throw new RequestMalformedError(
        `Expected a JSON request body: ${error instanceof Error ? error.message : String(error)}`,
      );
    }
    if (typeof body !== 'object' || body === null || Array.isArray(body))
      throw new RequestMalformedError(
        `Expected a JSON object as the request body, got ${Array.isArray(body) ? 'an array' : String(body)}.`,
      );
    return body as Record<string, unknown>;
  }

  /** The handler's stream as server-sent events, each the protocol's JSON of a `StreamResponse`. */
  stream(updates: AsyncIterable<StreamResponse>): Promise<Response> {
    return sseAnswer(this.#c, updates, this.#call.gone, {
      event: (update) => StreamResponse.toJSON(update),
      error: (error) => toRestErrorBody(error, restStatusFor(error)),
      refuse: errorAnswer,
    });
  }
}

/** A JSON answer of the binding (`application/a2a+json`). */
export function json(
  status: number,
  body: unknown,
  headers: Record<string, string> = {},
): Response {
  return new Response(JSON.stringify(body), {
    status,
    headers: { 'content-type': A2A_CONTENT_TYPE, ...headers },
  });
}

/** An error of the handler (or of the request) with the binding's status and body. */
export function errorAnswer(error: unknown): Response {
  const status = restStatusFor(error);
  return json(status, toRestErrorBody(error, status));
}

/** An error body of the binding for a refusal that is not one of the protocol's errors. */
export function errorBody(code: number, status: string, message: string) {
  return { error: { code, status, message, details: [] } };
}
