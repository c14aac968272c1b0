import { ResponsesRequestSchema, type OpenAiErrorBody } from '../../intel/index.js';
import { ReasoningSeal } from './reasoning-seal.js';
import type { ScriptedAnswer } from './scripted-answer.js';

/**
 * The Responses API's rules as OpenAI documents them, for the fake to play: what a reasoning
 * model adds to an answer (a `reasoning` item, encrypted when `include` asks for it; reasoning
 * tokens), what a later stateless request must carry back (the reasoning item before the
 * function call it led to, unaltered, to the same model), and what it refuses.
 */

/** OpenAI's reasoning families: o1, o3, o4-mini, GPT-5 (not its `-chat` model), codex models. */
function isReasoningModel(model: string): boolean {
  return /^(?:o\d|gpt-5|codex)/i.test(model) && !/^gpt-5[\w.]*-chat/i.test(model);
}

/** Reasoning tokens a reasoning model spends on each answer (part of its output tokens). */
const REASONING_TOKENS = 16;
/** OpenAI caches a prompt prefix from 1024 tokens, in steps of 128. */
const CACHE_MIN_TOKENS = 1024;
const CACHE_STEP_TOKENS = 128;
const CHARS_PER_TOKEN = 4;
/** Prompts remembered per model for prefix caching. */
const REMEMBERED_PROMPTS = 64;

/** A refused request: the status and the body in OpenAI's error shape. */
export interface Refusal {
  status: number;
  body: OpenAiErrorBody;
}

/** What the rules add to one scripted answer. */
export interface ResponsesExtras {
  /** The `reasoning` output item, before the message and calls. */
  reasoning?: { type: 'reasoning'; id: string; summary: never[]; encrypted_content?: string };
  /** The `id` of each function_call output item (`fc_…`), by call. */
  callItemIds: string[];
  cachedTokens: number;
  reasoningTokens: number;
}

function refusal(status: number, message: string, param: string | null, code: string | null) {
  return { status, body: { error: { message, type: 'invalid_request_error', param, code } } };
}

/** A reasoning item's need: the call it led to must come back after it, to the same model. */
interface Requirement {
  reasoningId: string;
  itemId: string;
  model: string;
}

export class ResponsesRules {
  readonly #seal = new ReasoningSeal();
  /** Call id → what it needs; a playbook may give two conversations' calls the same id. */
  readonly #required = new Map<string, Requirement[]>();
  readonly #prompts = new Map<string, string[]>();

  /** Why a (schema-valid) request is refused, as OpenAI words it; `undefined` to answer it. */
  refuse(body: unknown): Refusal | undefined {
    const request = ResponsesRequestSchema.parse(body);
    const wantsEncrypted = (request.include ?? []).includes('reasoning.encrypted_content');
    if (wantsEncrypted && !isReasoningModel(request.model)) {
      return refusal(400, 'Encrypted content is not supported with this model.', 'include', null);
    }
    const input = typeof request.input === 'string' ? [] : request.input;
    const seen = new Set<string>();
    for (const item of input) {
      if (item.type === 'reasoning') {
        const why = this.#checkReasoning(item, request.model, request.store === true);
        if (why !== undefined) return why;
        seen.add(item.id);
      } else if (item.type === 'function_call') {
        const needs = (this.#required.get(item.call_id) ?? []).filter(
          (need) => need.model === request.model,
        );
        const need = needs[0];
        if (need !== undefined && !needs.some((each) => seen.has(each.reasoningId))) {
          return refusal(
            400,
            `Item '${need.itemId}' of type 'function_call' was provided without its required 'reasoning' item: '${need.reasoningId}'.`,
            'input',
            null,
          );
        }
      }
    }
    return undefined;
  }

  #checkReasoning(
    item: { id: string; encrypted_content?: string | null | undefined },
    model: string,
    isStored: boolean,
  ): Refusal | undefined {
    const blob = item.encrypted_content;
    if (blob === undefined || blob === null) {
      // Without its content the item is a reference to a stored one; nothing is stored here.
      if (isStored) return undefined;
      return refusal(
        404,
        `Item with id '${item.id}' not found. Items are not persisted when \`store\` is set to false. Try again with \`store\` set to true, or remove this item from your input.`,
        'input',
        null,
      );
    }
    const sealed = this.#seal.open(blob);
    if (sealed?.id !== item.id || sealed.model !== model) {
      return refusal(
        400,
        `The encrypted content for item ${item.id} could not be verified.`,
        null,
        'invalid_encrypted_content',
      );
    }
    return undefined;
  }

  /** The reasoning, ids and token details of an answer; remembers what later requests must carry. */
  extras(body: unknown, answer: ScriptedAnswer): ResponsesExtras {
    const request = ResponsesRequestSchema.parse(body);
    const callItemIds = answer.toolCalls.map((_, index) => `fc_${answer.seq}_${index}`);
    // The prompt as OpenAI caches it: tools, instructions, then the input items in order.
    const prompt = JSON.stringify([request.tools ?? [], request.instructions ?? '', request.input]);
    const cachedTokens = Math.min(
      this.#cachedTokens(request.model, prompt),
      answer.usage.input_tokens,
    );
    if (!isReasoningModel(request.model)) return { callItemIds, cachedTokens, reasoningTokens: 0 };
    const id = `rs_${answer.seq}`;
    const isEncrypted = (request.include ?? []).includes('reasoning.encrypted_content');
    if (isEncrypted) {
      answer.toolCalls.forEach((call, index) => {
        const itemId = callItemIds[index] ?? '';
        const needs = this.#required.get(call.id) ?? [];
        needs.push({ reasoningId: id, itemId, model: request.model });
        this.#required.set(call.id, needs);
      });
    }
    return {
      reasoning: {
        type: 'reasoning',
        id,
        summary: [],
        ...(isEncrypted
          ? { encrypted_content: this.#seal.seal({ id, model: request.model }) }
          : {}),
      },
      callItemIds,
      cachedTokens,
      reasoningTokens: REASONING_TOKENS,
    };
  }

  /**
   * Tokens of the longest prefix this prompt shares with an earlier one to the same model, as
   * OpenAI's automatic caching reports them: none under 1024, then in steps of 128.
   */
  #cachedTokens(model: string, prompt: string): number {
    const earlier = this.#prompts.get(model) ?? [];
    let shared = 0;
    for (const other of earlier) shared = Math.max(shared, commonPrefix(prompt, other));
    earlier.push(prompt);
    if (earlier.length > REMEMBERED_PROMPTS) earlier.shift();
    this.#prompts.set(model, earlier);
    const tokens = Math.floor(shared / CHARS_PER_TOKEN);
    if (tokens < CACHE_MIN_TOKENS) return 0;
    return tokens - (tokens % CACHE_STEP_TOKENS);
  }
}

function commonPrefix(a: string, b: string): number {
  const length = Math.min(a.length, b.length);
  let at = 0;
  while (at < length && a.charCodeAt(at) === b.charCodeAt(at)) at += 1;
  return at;
}
