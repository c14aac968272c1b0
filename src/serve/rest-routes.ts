import { Hono } from 'hono';
import {
  AgentCard,
  CancelTaskRequest,
  ListTaskPushNotificationConfigsResponse,
  SendMessageRequest,
  SendMessageResponse,
  Task,
  TaskPushNotificationConfig,
  type ListTasksResponse,
} from '@a2a-js/sdk';
import { RequestMalformedError, toRestErrorBody } from '@a2a-js/sdk/errors';
import { validateVersion, type A2ARequestHandler } from '@a2a-js/sdk/server';
import { REST_PATH } from './agent-card.js';
import { BEARER_REQUIRED, callContext, type PrincipalEnv } from './call-context.js';
import { errorAnswer, errorBody, json, RestCall } from './rest-call.js';

/** One route of the binding: its methods, its path under `REST_PATH` (ids captured), its answer. */
interface Route {
  methods: readonly string[];
  path: RegExp;
  answer(call: RestCall): Promise<Response>;
}

/** An id in a path: the client percent-encodes it, so a literal `:` starts the action. */
const ID = '([^/:]+)';

/**
 * The routes of A2A 1.0's HTTP+JSON binding, as the SDK's own `restHandler` serves them
 * (@a2a-js/sdk src/server/express/rest_handler.ts): bodies and answers in the protocol's JSON
 * (the SDK's codecs), errors as `{ error: { code, status, message, details } }`.
 */
const ROUTES: readonly Route[] = [
  {
    methods: ['POST'],
    path: /^\/message:send$/,
    answer: async (call) => {
      const result = await call.handler.sendMessage(
        SendMessageRequest.fromJSON(await call.body()),
        call.context,
      );
      const payload =
        'messageId' in result
          ? { $case: 'message' as const, value: result }
          : { $case: 'task' as const, value: result };
      return json(200, SendMessageResponse.toJSON({ payload }));
    },
  },
  {
    methods: ['POST'],
    path: /^\/message:stream$/,
    answer: async (call) =>
      call.stream(
        call.handler.sendMessageStream(
          SendMessageRequest.fromJSON(await call.body()),
          call.context,
        ),
      ),
  },
  {
    methods: ['GET'],
    path: /^\/tasks$/,
    answer: async (call) => {
      const includeArtifacts = call.query('includeArtifacts') === 'true';
      const list = await call.handler.listTasks(
        {
          tenant: '',
          contextId: call.query('contextId') ?? '',
          status: call.state('status'),
          pageSize: call.integer('pageSize'),
          pageToken: call.query('pageToken') ?? '',
          historyLength: call.integer('historyLength'),
          statusTimestampAfter: call.query('statusTimestampAfter'),
          includeArtifacts,
        },
        call.context,
      );
      return json(200, listJson(list, includeArtifacts));
    },
  },
  {
    methods: ['GET'],
    path: new RegExp(`^/tasks/${ID}$`),
    answer: async (call) => {
      const task = await call.handler.getTask(
        { tenant: '', id: call.id(0), historyLength: call.integer('historyLength') },
        call.context,
      );
      return json(200, Task.toJSON(task));
    },
  },
  {
    methods: ['POST'],
    path: new RegExp(`^/tasks/${ID}:cancel$`),
    answer: async (call) => {
      const request = CancelTaskRequest.fromJSON({ ...(await call.body()), id: call.id(0) });
      return json(200, Task.toJSON(await call.handler.cancelTask(request, call.context)));
    },
  },
  {
    methods: ['GET', 'POST'],
    path: new RegExp(`^/tasks/${ID}:subscribe$`),
    answer: (call) =>
      call.stream(call.handler.resubscribe({ tenant: '', id: call.id(0) }, call.context)),
  },
  {
    methods: ['POST'],
    path: new RegExp(`^/tasks/${ID}/pushNotificationConfigs$`),
    answer: async (call) => {
      const config = TaskPushNotificationConfig.fromJSON({
        ...(await call.body()),
        taskId: call.id(0),
      });
      const made = await call.handler.createTaskPushNotificationConfig(config, call.context);
      return json(201, TaskPushNotificationConfig.toJSON(made));
    },
  },
  {
    methods: ['GET'],
    path: new RegExp(`^/tasks/${ID}/pushNotificationConfigs$`),
    answer: async (call) => {
      const configs = await call.handler.listTaskPushNotificationConfigs(
        {
          tenant: '',
          taskId: call.id(0),
          pageSize: call.integer('pageSize') ?? 0,
          pageToken: call.query('pageToken') ?? '',
        },
        call.context,
      );
      return json(200, ListTaskPushNotificationConfigsResponse.toJSON(configs));
    },
  },
  {
    methods: ['GET'],
    path: new RegExp(`^/tasks/${ID}/pushNotificationConfigs/${ID}$`),
    answer: async (call) => {
      const config = await call.handler.getTaskPushNotificationConfig(
        { tenant: '', taskId: call.id(0), id: call.id(1) },
        call.context,
      );
      return json(200, TaskPushNotificationConfig.toJSON(config));
    },
  },
  {
    methods: ['DELETE'],
    path: new RegExp(`^/tasks/${ID}/pushNotificationConfigs/${ID}$`),
    answer: async (call) => {
      await call.handler.deleteTaskPushNotificationConfig(
        { tenant: '', taskId: call.id(0), id: call.id(1) },
        call.context,
      );
      return new Response(null, { status: 204 });
    },
  },
  {
    methods: ['GET'],
    path: /^\/extendedAgentCard$/,
    answer: async (call) => {
      const card = await call.handler.getAuthenticatedExtendedAgentCard(
        { tenant: '' },
        call.context,
      );
      return json(200, AgentCard.toJSON(card));
    },
  },
];

/**
 * A2A over HTTP+JSON under `REST_PATH`, beside JSON-RPC: the same handler, principals and call
 * context. A trailing slash is tolerated; tenants are not (the card declares none).
 */
export function restRoutes(handler: A2ARequestHandler): Hono<PrincipalEnv> {
  const app = new Hono<PrincipalEnv>();
  app.on(['GET', 'POST', 'DELETE'], [REST_PATH, `${REST_PATH}/*`], async (c) => {
    const principal = c.get('principal');
    if (principal === undefined)
      return json(401, errorBody(401, 'UNAUTHENTICATED', BEARER_REQUIRED), {
        'www-authenticate': 'Bearer',
      });
    const path = new URL(c.req.url).pathname.slice(REST_PATH.length).replace(/\/+$/, '');
    const routes = ROUTES.filter((route) => route.path.test(path));
    const route = routes.find((each) => each.methods.includes(c.req.method));
    if (route === undefined) return noRoute(c.req.method, path, routes);
    const call = new RestCall(c, handler, callContext(c.req.raw, principal), route.path.exec(path));
    try {
      validateVersion(call.context.requestedVersion, await handler.getAgentCard(), 'HTTP+JSON');
      return await route.answer(call);
    } catch (error) {
      return errorAnswer(error);
    }
  });
  return app;
}

/** A refusal before any route (a body too large or too deep), in the binding's error shape. */
export function restError(status: 400 | 413, message: string): Response {
  return json(status, toRestErrorBody(new RequestMalformedError(message), status));
}

function noRoute(method: string, path: string, routes: readonly Route[]): Response {
  const where = `${REST_PATH}${path}`;
  if (routes.length === 0)
    return json(404, errorBody(404, 'NOT_FOUND', `No A2A HTTP+JSON route at ${where}.`));
  const allowed = [...new Set(routes.flatMap((route) => route.methods))].join(', ');
  return json(
    405,
    errorBody(405, 'UNIMPLEMENTED', `Expected ${allowed} on ${where}, got ${method}.`),
    { allow: allowed },
  );
}

/** The list in the protocol's JSON, every field present, as the JSON-RPC binding writes it. */
function listJson(list: ListTasksResponse, includeArtifacts: boolean): unknown {
  return {
    tasks: list.tasks.map((task) => {
      const shape = Task.toJSON(task) as Record<string, unknown>;
      return includeArtifacts ? { artifacts: [], ...shape } : shape;
    }),
    nextPageToken: list.nextPageToken,
    pageSize: list.pageSize,
    totalSize: list.totalSize,
  };
}
