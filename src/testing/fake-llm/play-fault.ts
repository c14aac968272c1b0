import type { IncomingMessage, ServerResponse } from 'node:http';
import type { Dialect } from '../../protocol/index.js';
import type { Fault } from './playbook.js';
import type { RecordedRequest } from './recorded-request.js';
import { sendError, sendEvents, sendJson } from './send.js';

/** A 200 body that is JSON but not the dialect's response shape. */
const MALFORMED_BODY = {
  arbor_mock_llm: 'malformed',
  note: 'This body is deliberately not a chat completion or a message.',
};

/** Fails a request the way the fault says. */
export function playFault(
  fault: Fault,
  dialect: Dialect,
  stream: boolean,
  request: IncomingMessage,
  response: ServerResponse,
  record: RecordedRequest,
): void {
  record.fault = fault.kind;
  switch (fault.kind) {
    case 'status': {
      record.status = fault.status;
      const headers =
        fault.retry_after === undefined ? {} : { 'retry-after': String(fault.retry_after) };
      if (fault.body !== undefined) {
        const isJson = fault.body.trimStart().startsWith('{');
        response.writeHead(fault.status, {
          'content-type': isJson ? 'application/json' : 'text/plain; charset=utf-8',
          ...headers,
        });
        response.end(fault.body);
        return;
      }
      sendError(
        response,
        dialect,
        fault.status,
        `Scripted failure (HTTP ${fault.status}) from arbor mock-llm.`,
        headers,
      );
      return;
    }
    case 'malformed':
      record.status = 200;
      // A stream of events that are not JSON; an unstreamed body of the wrong shape.
      if (stream) sendEvents(response, ['data: this is not JSON\n\n']);
      else sendJson(response, 200, MALFORMED_BODY);
      return;
    case 'reset':
    case 'cut':
      // A `cut` of a request that does not stream: there is no half answer to give.
      request.socket.destroy();
      return;
    case 'hang':
      // Hold the socket, answer nothing: the client's timeout or cancellation ends it, or close().
      return;
  }
}
