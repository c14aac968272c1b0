import type {
  CallOptions,
  ModelClient,
  ModelDelta,
  ModelRequest,
  ModelResponse,
} from '../intel/model.js';
import { textDigest, toolsDigest, ZERO_USAGE } from '../loop/index.js';
import {
  ArborError,
  cutLines,
  diffMessages,
  type IntelConfig,
  type ReplayPayload,
  type ToolDef,
  type TranscriptMessage,
} from '../protocol/index.js';

/** What a replayed node found different in its request before a model call. */
export interface Divergence {
  /** The node's model call, from 1. */
  call: number;
  what: string;
  recorded: string | null;
  replayed: string | null;
  /** Whether the node goes on live from here. */
  live: boolean;
}

/**
 * The model of a replayed node (`payload.replay`): each call is answered with the node's recorded
 * answer to that call, once the request is found to be the recorded one — the same messages (as
 * `arbor runs diff` compares them), system prompt, tools and requested model. No endpoint is
 * called and nothing is spent. The first difference is a divergence: reported, then either the
 * call fails with `replay_diverged` or, with `continue_live` (and from a fork's step), this and
 * every later call go to `live`, the node's own intelligence.
 */
export class ReplayModel implements ModelClient {
  readonly #replay: ReplayPayload;
  readonly #live: ModelClient;
  readonly #onDivergence: (divergence: Divergence) => void;
  /** Where each recorded answer is in the recorded transcript, by call. */
  readonly #answers: number[];
  /** The recorded transcript as requests are compared with it, made once. */
  readonly #comparable: TranscriptMessage[];
  #calls = 0;
  #goneLive = false;

  constructor(
    replay: ReplayPayload,
    live: ModelClient,
    onDivergence: (divergence: Divergence) => void,
  ) {
    this.#replay = replay;
    this.#live = live;
    this.#onDivergence = onDivergence;
    this.#answers = replay.transcript.flatMap((m, index) =>
      m.role === 'assistant' ? [index] : [],
    );
    this.#comparable = comparable(replay.transcript);
  }

  /** Whether the node has left its record: its calls go to its intelligence, its tools run. */
  get isLive(): boolean {
    return this.#goneLive;
  }

  get model(): string {
    return this.#live.model;
  }

  swap(config: IntelConfig): void {
    this.#live.swap(config);
  }

  health(): ReturnType<ModelClient['health']> {
    return this.#live.health();
  }

  onHealth(listener: Parameters<ModelClient['onHealth']>[0]): () => void {
    return this.#live.onHealth(listener);
  }

  async generate(request: ModelRequest, options?: CallOptions): Promise<ModelResponse> {
    return this.#serve(request) ?? this.#live.generate(request, options);
  }

  async *stream(request: ModelRequest, options?: CallOptions): AsyncGenerator<ModelDelta> {
    const served = this.#serve(request);
    if (served === undefined) {
      yield* this.#live.stream(request, options);
      return;
    }
    if (served.text !== '') yield { type: 'text', text: served.text };
    yield { type: 'done', response: served };
  }

  /** The recorded answer to this call, or undefined when the call goes live. */
  #serve(request: ModelRequest): ModelResponse | undefined {
    this.#calls += 1;
    const call = this.#calls;
    if (this.#goneLive) return undefined;
    const { live_from: liveFrom } = this.#replay;
    if (liveFrom !== undefined && call >= liveFrom) {
      this.#diverge({ call, what: 'fork', recorded: null, replayed: null, live: true });
      return undefined;
    }
    const found = this.#difference(call, request);
    if (found !== undefined) {
      const live = this.#replay.continue_live;
      this.#diverge({ call, ...found, live });
      if (live) return undefined;
      throw new ArborError(
        'replay_diverged',
        `The replay diverged before model call ${call}: ${found.what} differs from the record.`,
        { details: { call, what: found.what } },
      );
    }
    const answer = this.#replay.transcript[this.#answers[call - 1] ?? -1];
    if (answer?.role !== 'assistant') throw new Error(`no recorded answer to call ${call}`);
    const recorded = this.#replay.calls[call - 1];
    return {
      text: answer.text ?? '',
      toolCalls: answer.tool_calls.map((c) => ({ ...c })),
      finishReason: answer.tool_calls.length > 0 ? 'tool_calls' : 'stop',
      usage: ZERO_USAGE,
      model: recorded?.model ?? this.#live.model,
      endpointIndex: 0,
      ...(recorded?.request_model === undefined ? {} : { modelAsked: recorded.request_model }),
      ...(answer.reasoning === undefined ? {} : { reasoning: answer.reasoning }),
      replayed: true,
    };
  }

  #diverge(divergence: Divergence): void {
    this.#goneLive = divergence.live;
    this.#onDivergence(divergence);
  }

  /** The first way this call's request differs from the recorded one, if any. */
  #difference(call: number, request: ModelRequest): Omit<Divergence, 'call' | 'live'> | undefined {
    const at = this.#answers[call - 1];
    if (at === undefined)
      return {
        what: 'ended',
        recorded: `(the node made ${this.#answers.length} model calls)`,
        replayed: `(model call ${call})`,
      };
    const messages = diffMessages(this.#comparable.slice(0, at), comparable(request.messages));
    if (messages !== undefined)
      return { what: messages.what, recorded: messages.a, replayed: messages.b };
    const recorded = this.#replay.calls[call - 1];
    if (recorded === undefined) return undefined;
    if (recorded.system_digest !== undefined && request.system !== undefined) {
      const text = this.#replay.systems[recorded.system_digest];
      const same =
        text === undefined
          ? textDigest(request.system) === recorded.system_digest
          : unmark(text) === unmark(request.system);
      if (!same) return { what: 'system', ...firstLineDiff(text, request.system) };
    }
    const tools = request.tools ?? [];
    if (recorded.tools_digest !== undefined && toolsDigest(tools) !== recorded.tools_digest)
      return { what: 'tools', ...toolsDiff(this.#replay.tools[recorded.tools_digest], tools) };
    if ((recorded.request_model ?? null) !== (request.model ?? null))
      return {
        what: 'model',
        recorded: recorded.request_model ?? '(the endpoint model)',
        replayed: request.model ?? '(the endpoint model)',
      };
    return undefined;
  }
}

/**
 * A node's untrusted-content marker (24 hex characters, minted afresh by every child) stands in
 * its system prompt and fences its untrusted tool results: it differs on every run by design, so
 * comparisons see every such marker as the same.
 */
const MARKER = /\b[0-9a-f]{24}\b/g;

function unmark(text: string): string {
  return text.replace(MARKER, '<marker>');
}

/**
 * What a node's transcript shows of the tree's own accounting — a sub-agent's usage, cost and
 * time in the results of `subagent.*` — is a measure of the run, not of what happened: a replay
 * spends nothing, and a provider counts the same conversation differently from day to day.
 */
const ACCOUNTING = new Set(['usage', 'subtree_usage', 'cost_usd', 'duration_ms', 'elapsed_ms']);

/** Messages as a replay compares them: markers as one, and no accounting in `subagent.*` results. */
function comparable(messages: readonly TranscriptMessage[]): TranscriptMessage[] {
  return messages.map((message) => {
    const plain = unmarkAll(message) as TranscriptMessage;
    return plain.role === 'tool' && plain.name.startsWith('subagent.')
      ? { ...plain, content: withoutAccounting(plain.content) }
      : plain;
  });
}

/** A value with every string in it unmarked. */
function unmarkAll(value: unknown): unknown {
  if (typeof value === 'string') return unmark(value);
  if (Array.isArray(value)) return value.map(unmarkAll);
  if (typeof value !== 'object' || value === null) return value;
  return Object.fromEntries(Object.entries(value).map(([key, inner]) => [key, unmarkAll(inner)]));
}

/**
 * The accounting fields as a sub-agent's result writes them inside text (a result fenced as
 * untrusted content is text around the JSON): flat objects and numbers, each with its comma.
 */
const ACCOUNTING_TEXT =
  /,?"(?:usage|subtree_usage)":\{[^{}]*\}|,?"(?:cost_usd|duration_ms|elapsed_ms)":-?[\d.eE+-]+/g;

function withoutAccounting(value: unknown): unknown {
  if (typeof value === 'string') {
    if (value.startsWith('{'))
      try {
        return withoutAccounting(JSON.parse(value) as unknown);
      } catch {
        // Not JSON after all: cleaned as text below.
      }
    return value.replace(ACCOUNTING_TEXT, '');
  }
  if (Array.isArray(value)) return value.map(withoutAccounting);
  if (typeof value !== 'object' || value === null) return value;
  return Object.fromEntries(
    Object.entries(value)
      .filter(([key]) => !ACCOUNTING.has(key))
      .map(([key, inner]) => [key, withoutAccounting(inner)]),
  );
}

/** The first line where a recorded text and the replay's differ, each side cut short. */
function firstLineDiff(
  recorded: string | undefined,
  replayed: string,
): { recorded: string | null; replayed: string | null } {
  if (recorded === undefined) return { recorded: '(not recorded)', replayed: cutLines([replayed]) };
  const a = unmark(recorded).split('\n');
  const b = unmark(replayed).split('\n');
  let line = 0;
  while (line < Math.max(a.length, b.length) && a[line] === b[line]) line += 1;
  const show = (side: string[]) =>
    side[line] === undefined ? '(ends)' : cutLines([`line ${line + 1}: ${side[line]}`]);
  return { recorded: show(a), replayed: show(b) };
}

/** The tools only one side offers, and those both offer with another definition. */
function toolsDiff(
  recorded: readonly ToolDef[] | undefined,
  replayed: readonly ToolDef[],
): { recorded: string | null; replayed: string | null } {
  if (recorded === undefined)
    return { recorded: '(not recorded)', replayed: replayed.map((t) => t.name).join(', ') };
  const before = new Map(recorded.map((t) => [t.name, JSON.stringify(t)]));
  const after = new Map(replayed.map((t) => [t.name, JSON.stringify(t)]));
  const lines = (from: Map<string, string>, to: Map<string, string>) => {
    const only = [...from.keys()].filter((name) => !to.has(name));
    const changed = [...from.keys()].filter((n) => to.has(n) && to.get(n) !== from.get(n));
    const shown = [
      ...(only.length === 0 ? [] : [`only here: ${only.join(', ')}`]),
      ...(changed.length === 0 ? [] : [`defined otherwise: ${changed.join(', ')}`]),
    ];
    if (shown.length > 0) return cutLines(shown);
    const sameNames = from.size === to.size && [...from.keys()].every((name) => to.has(name));
    return sameNames ? '(the same tools, in another order)' : '(none of its own)';
  };
  return { recorded: lines(before, after), replayed: lines(after, before) };
}

/** The tool results a replayed node's calls are answered with, by the id of each recorded call. */
export class RecordedResults {
  readonly #byId = new Map<string, TranscriptMessage[]>();

  constructor(transcript: readonly TranscriptMessage[]) {
    for (const message of transcript) {
      if (message.role !== 'tool') continue;
      const list = this.#byId.get(message.id) ?? [];
      list.push(message);
      this.#byId.set(message.id, list);
    }
  }

  /** The recorded result of the call with this id (each is given once, in recorded order). */
  take(callId: string): { content: unknown; isError: boolean } | undefined {
    const message = this.#byId.get(callId)?.shift();
    return message?.role === 'tool'
      ? { content: message.content, isError: message.is_error }
      : undefined;
  }
}
