import { AgentCard, type AgentSkill } from '@a2a-js/sdk';
import type { ServeTable } from '../config/index.js';
import { ARBOR_VERSION } from '../protocol/index.js';

/** Where the JSON-RPC interface is served. */
export const JSONRPC_PATH = '/a2a/jsonrpc';

/** Where the HTTP+JSON (REST) interface is served: `/a2a/rest/message:send`, `/a2a/rest/tasks`, … */
export const REST_PATH = '/a2a/rest';

/** The agent card of `arbor serve`, for a server reached at `baseUrl`. */
export function agentCard(baseUrl: string, serve: ServeTable | undefined): AgentCard {
  const skills: AgentSkill[] = (serve?.skill ?? []).map((skill) => ({
    id: skill.id,
    name: skill.name,
    description: skill.description,
    tags: skill.tags ?? [],
    examples: skill.examples ?? [],
    inputModes: [],
    outputModes: [],
    securityRequirements: [],
  }));
  return {
    name: serve?.name ?? 'arbor',
    description:
      serve?.description ??
      'An arbor supervisor: it runs each task as a tree of bounded, isolated LLM agents and returns one answer.',
    supportedInterfaces: [
      {
        url: `${baseUrl}${JSONRPC_PATH}`,
        protocolBinding: 'JSONRPC',
        tenant: '',
        protocolVersion: '1.0',
      },
      {
        url: `${baseUrl}${REST_PATH}`,
        protocolBinding: 'HTTP+JSON',
        tenant: '',
        protocolVersion: '1.0',
      },
    ],
    provider: undefined,
    version: ARBOR_VERSION,
    capabilities: {
      streaming: true,
      pushNotifications: true,
      extensions: [],
      extendedAgentCard: false,
    },
    securitySchemes: {
      bearer: {
        scheme: {
          $case: 'httpAuthSecurityScheme',
          value: {
            description:
              "A principal's token (`[[serve.principal]]`), or the operator token `arbor serve` made at start.",
            scheme: 'Bearer',
            bearerFormat: '',
          },
        },
      },
    },
    securityRequirements: [{ schemes: { bearer: { list: [] } } }],
    defaultInputModes: ['text/plain', 'application/json'],
    defaultOutputModes: ['text/plain', 'application/json'],
    skills,
    signatures: [],
  };
}

/** The card in the protocol's JSON form. */
export function cardJson(card: AgentCard): unknown {
  return AgentCard.toJSON(card);
}
