import { AgentCard, type AgentSkill } from '@a2a-js/sdk';
import type { ServeTable } from '../config/index.js';
import { ARBOR_VERSION } from '../protocol/index.js';

/** Where the agent card is served. */
export const CARD_PATH = '/.well-known/agent-card.json';

/** Where the JSON-RPC interface is served. */
export const JSONRPC_PATH = '/a2a/jsonrpc';

/** The media types a task's message may carry, and an answer comes in. */
const INPUT_MODES = ['text/plain', 'application/json'];
const OUTPUT_MODES = ['text/plain', 'application/json'];

/**
 * The skill a card lists when `[[serve.skill]]` lists none: A2A requires at least one, and what
 * any `arbor serve` does is take a task and delegate it through a tree of agents.
 */
const DEFAULT_SKILL: AgentSkill = {
  id: 'delegate',
  name: 'Delegate a task',
  description:
    'Takes a task in plain language (with JSON data or text files if useful), runs it as a tree of bounded, isolated LLM agents under the server’s grant and limits, and returns one answer; it may ask a question back (input required) before it ends.',
  tags: ['delegation', 'agents', 'orchestration'],
  examples: ['Summarise README.md and list its open questions.'],
  inputModes: INPUT_MODES,
  outputModes: OUTPUT_MODES,
  securityRequirements: [],
};

/** Where the HTTP+JSON (REST) interface is served: `/a2a/rest/message:send`, `/a2a/rest/tasks`, … */
export const REST_PATH = '/a2a/rest';

/** The agent card of `arbor serve`, for a server reached at `baseUrl`. */
export function agentCard(baseUrl: string, serve: ServeTable | undefined): AgentCard {
  const configured: AgentSkill[] = (serve?.skill ?? []).map((skill) => ({
    id: skill.id,
    name: skill.name,
    description: skill.description,
    tags: skill.tags ?? [],
    examples: skill.examples ?? [],
    inputModes: [],
    outputModes: [],
    securityRequirements: [],
  }));
  const skills = configured.length === 0 ? [DEFAULT_SKILL] : configured;
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
    defaultInputModes: INPUT_MODES,
    defaultOutputModes: OUTPUT_MODES,
    skills,
    signatures: [],
  };
}

/** The card in the protocol's JSON form. */
export function cardJson(card: AgentCard): unknown {
  return AgentCard.toJSON(card);
}
