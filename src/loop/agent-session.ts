import type { ModelClient, ModelResponse, ModelToolCall } from '../intel/model.js';
import {
  isArborError,
  type Finish,
  type TerminalStatus,
  type ToolCall,
  type TranscriptMessage,
  type Usage,
} from '../protocol/index.js';
import { FINISH_TOOL, FINISH_TOOL_NAME, readFinish } from './finish-tool.js';
import { boundedSignal, checkGuards, type Stop, type TurnBounds } from './guards.js';
import { LoopDetector } from './loop-detector.js';
import { SUBMIT_REMINDERS, SUBMIT_TOOL_NAME } from './output-capture.js';
import { StallDetector } from './stall-detector.js';
import { streamAnswer } from './stream-answer.js';
import { runSessionTools } from './session-tools.js';
import { commitOrder, interruptedStep } from './interrupted-step.js';
import { finishStatus, reasonOf, refusedStatus, turnReport } from './stop-status.js';
import { addUsage, estimateTokens, ZERO_USAGE } from './usage.js';
import { answeredBy, usageSplits } from './usage-splits.js';
import { EstimateCorrection } from './estimate-correction.js';
import { askedFields, recordOffer, recordSystem } from './offered-tools.js';
import type { SessionOptions, TurnReport } from './session-types.js';

/**
 * An agent's conversation: a transcript, a model, tools and limits. `runTurn` reacts to one
 * message with model calls and tool calls until the model answers, a limit stops it, or it is
 * cancelled. A warm session calls `runTurn` once per delivered message on the same transcript;
 * every turn gets fresh step, token and deadline limits.
 */
export class AgentSession {
  readonly #options: SessionOptions;
  readonly #transcript: TranscriptMessage[];
  readonly #stall: StallDetector;
  readonly #now: () => number;
  #model: ModelClient;
  #resumed: boolean;

  constructor(options: SessionOptions) {
    this.#options = options;
    this.#resumed = options.resumed === true;
    this.#model = options.model;
    this.#transcript = [...(options.transcript ?? [])];
    this.#stall = new StallDetector(options.limits.stall_turns);
    this.#now = options.now ?? (() => Date.now());
  }

  get transcript(): readonly TranscriptMessage[] {
    return this.#transcript;
  }

  /** Points later turns at another model client (a hot swap). */
  useModel(model: ModelClient): void {
    this.#model = model;
  }

  /** Drops every message after `length`: used to re-run a turn from its pre-turn state. */
  rewind(length: number): void {
    this.#transcript.length = Math.min(length, this.#transcript.length);
    this.#options.hooks?.onTranscript?.({ op: 'rewind', length: this.#transcript.length });
  }

  /** Runs one turn reacting to `input` (or to the transcript as it stands, when absent). */
  async runTurn(
    input: TranscriptMessage | undefined,
    options: { signal: AbortSignal },
  ): Promise<TurnReport> {
    // Tool lists (an MCP server that announced a change) are brought up to date between turns only.
    await this.#options.tools.refresh?.({ signal: options.signal });
    const turn = new TurnRun(
      this.#options,
      this.#model,
      this.#transcript,
      this.#now,
      options.signal,
    );
    // The first turn of a session re-spawned after a crash finishes the step that was in flight.
    const resumed = this.#resumed && input === undefined;
    this.#resumed = false;
    const report = await turn.run(input, resumed);
    if (report.outcome.status === 'completed' && this.#stall.observe(report.text ?? '')) {
      const turns = this.#options.limits.stall_turns;
      report.outcome = {
        ...report.outcome,
        status: 'stalled',
        partial: true,
        reason: `the same answer ${turns} turns running`,
      };
    }
    return report;
  }
}

/** The state of one turn in flight. */
class TurnRun {
  readonly #options: SessionOptions;
  readonly #model: ModelClient;
  readonly #transcript: TranscriptMessage[];
  readonly #now: () => number;
  readonly #signal: AbortSignal;
  readonly #start: number;
  readonly #bounds: TurnBounds;
  readonly #loops: LoopDetector;
  #usage: Usage = ZERO_USAGE;
  /** Admission estimates, corrected by the input tokens this node's calls report. */
  readonly #estimates = new EstimateCorrection();
  #steps = 0;
  #toolCalls = 0;
  #reminders = 0;
  #text: string | undefined;

  constructor(
    options: SessionOptions,
    model: ModelClient,
    transcript: TranscriptMessage[],
    now: () => number,
    signal: AbortSignal,
  ) {
    this.#options = options;
    this.#model = model;
    this.#transcript = transcript;
    this.#now = now;
    this.#signal = signal;
    this.#start = transcript.length;
    const { limits } = options;
    this.#bounds = {
      maxSteps: limits.max_steps,
      maxTokens: limits.max_tokens,
      deadlineAt: limits.deadline_ms === undefined ? undefined : now() + limits.deadline_ms,
      deadlineMs: limits.deadline_ms,
    };
    this.#loops = new LoopDetector(limits.loop_threshold);
  }

  async run(input: TranscriptMessage | undefined, resumed = false): Promise<TurnReport> {
    if (input !== undefined) this.#append(input);
    if (resumed) {
      const ended = await this.#finishInterruptedStep();
      if (ended !== undefined) return ended;
    }
    for (;;) {
      await this.#options.hooks?.waitWhileHeld?.(this.#signal);
      const stop = this.#guard();
      if (stop !== undefined) return this.#end(stop.status, stop.reason);

      const response = await this.#callModel();
      if ('status' in response) return this.#end(response.status, response.reason);

      const calls = response.toolCalls;
      const { capture } = this.#options;
      if (calls.length === 0) {
        if (capture === undefined) return this.#end('completed', undefined);
        if (this.#reminders >= SUBMIT_REMINDERS)
          return this.#end(
            'failed',
            `no valid value was submitted to \`${SUBMIT_TOOL_NAME}\` after ${SUBMIT_REMINDERS} reminders`,
          );
        this.#reminders += 1;
        this.#append({
          role: 'user',
          text: `Your answer must be submitted by calling \`${SUBMIT_TOOL_NAME}\` with arguments that match the result schema. Call it now.`,
          ts: this.#now(),
        });
        continue;
      }
      const looping = this.#loops.record(calls);
      if (looping !== undefined) {
        const times = this.#options.limits.loop_threshold;
        return this.#end(
          'loop_detected',
          `tool \`${looping.name}\` called ${times} times with the same arguments`,
        );
      }
      const ended = await this.#toolStep(calls, calls);
      if (ended !== undefined) return ended;
    }
  }

  /**
   * Runs a step's tool calls (`pending`, all of `calls` unless the step is being finished after a
   * crash) and says whether the turn ends with them.
   */
  async #toolStep(
    calls: readonly ModelToolCall[],
    pending: readonly ModelToolCall[],
  ): Promise<TurnReport | undefined> {
    let finish: Finish | undefined;
    // The turn's deadline holds during tools too: a command still running when it passes is
    // stopped (exec kills its process group) and the turn ends `deadline`, not at the next step.
    const bounded = boundedSignal(this.#signal, this.#bounds, this.#now());
    const toolSignal = bounded.signal;
    try {
      finish = await this.#runTools(pending, toolSignal);
    } catch (error) {
      // A tool interrupted by the turn's cancellation or deadline is not a failure of the turn.
      if (!toolSignal.aborted) throw error;
    } finally {
      bounded.dispose();
    }
    if (this.#signal.aborted) return this.#end('cancelled', `cancelled: ${reasonOf(this.#signal)}`);
    const { capture } = this.#options;
    if (capture?.committed === true)
      return this.#end('completed', undefined, undefined, { value: capture.value });
    // A `finish` whose result was recorded before the crash still ends the turn.
    finish ??= this.#recordedFinish(calls, pending);
    if (finish !== undefined) return this.#end(finishStatus(finish), finish.reason, finish);
    if (toolSignal.aborted)
      return this.#end(
        'deadline',
        `deadline of ${this.#bounds.deadlineMs ?? 0} ms passed during a tool call`,
      );
    return undefined;
  }

  /**
   * Continues a transcript recorded before a crash. The step in flight had its model call
   * answered: its tool calls that have no result run now (the ones that had finished are not run
   * again), and an answer with no tool calls is the turn's answer. Anything else: the loop goes on.
   */
  async #finishInterruptedStep(): Promise<TurnReport | undefined> {
    const interrupted = interruptedStep(this.#transcript);
    if (interrupted === undefined) return undefined;
    const { at, step, pending } = interrupted;
    if (step.text !== undefined) this.#text = step.text;
    if (step.tool_calls.length === 0) {
      const answered = at === this.#transcript.length - 1 && this.#options.capture === undefined;
      return answered ? this.#end('completed', undefined) : undefined;
    }
    this.#options.hooks?.onEvent?.({
      type: 'loop.resumed_step',
      toolCalls: step.tool_calls.length,
      pending: pending.length,
    });
    return this.#toolStep(step.tool_calls, pending);
  }

  /** The first valid `finish` among calls of a step that are already answered. */
  #recordedFinish(calls: readonly ToolCall[], pending: readonly ToolCall[]): Finish | undefined {
    if (!this.#offersFinish()) return undefined;
    for (const call of calls) {
      if (call.name !== FINISH_TOOL_NAME || pending.includes(call)) continue;
      const read = readFinish(call.args);
      if (typeof read !== 'string') return read;
    }
    return undefined;
  }

  #append(message: TranscriptMessage): void {
    this.#transcript.push(message);
    this.#options.hooks?.onTranscript?.({ op: 'append', message });
  }

  /** `finish` is handled by the session itself, unless a tool of that name shadows it. */
  #offersFinish(): boolean {
    const shadowed = this.#options.tools.definitions().some((d) => d.name === FINISH_TOOL_NAME);
    return this.#options.offerFinish !== false && !shadowed;
  }

  #guard(): Stop | undefined {
    return checkGuards(
      {
        cancelReason: this.#signal.aborted ? reasonOf(this.#signal) : undefined,
        now: this.#now(),
        steps: this.#steps,
        tokens: this.#usage.input_tokens + this.#usage.output_tokens,
      },
      this.#bounds,
    );
  }

  /** One model call, bounded by the turn's deadline; a stop when the call was cut short. */
  async #callModel(): Promise<ModelResponse | Stop> {
    const { hooks, system, tools, logContent } = this.#options;
    const definitions = [...tools.definitions()];
    const toolDefs = this.#offersFinish() ? [...definitions, FINISH_TOOL] : definitions;
    let model: string | undefined;
    let raw: number | undefined;
    if (hooks?.admit !== undefined) {
      raw = estimateTokens(system, this.#transcript, toolDefs);
      try {
        model = (await hooks.admit(this.#estimates.correct(raw), { signal: this.#signal })).model;
      } catch (error) {
        if (this.#signal.aborted)
          return { status: 'cancelled', reason: `cancelled: ${reasonOf(this.#signal)}` };
        if (isArborError(error, 'budget_refused'))
          return { status: refusedStatus(error.details.limit), reason: error.message };
        throw error;
      }
    }
    const bounded = boundedSignal(this.#signal, this.#bounds, this.#now());
    const { signal } = bounded;
    const started = this.#now();
    this.#steps += 1;
    hooks?.onEvent?.({ type: 'loop.step', step: this.#steps });
    const digest = recordOffer(this.#options, toolDefs);
    let response: ModelResponse;
    try {
      // Streamed, so every node's answer can be watched as it is written (`text.delta`).
      response = await streamAnswer(
        this.#model,
        {
          system,
          messages: this.#transcript,
          tools: toolDefs,
          ...(model === undefined ? {} : { model }),
        },
        signal,
        (delta) => {
          if (delta.type === 'text')
            hooks?.onEvent?.({ type: 'text.delta', step: this.#steps, text: delta.text });
          else hooks?.onEvent?.({ type: 'text.reset', step: this.#steps, reason: delta.reason });
        },
      );
    } catch (error) {
      if (this.#signal.aborted)
        return { status: 'cancelled', reason: `cancelled: ${reasonOf(this.#signal)}` };
      if (signal.aborted)
        return {
          status: 'deadline',
          reason: `deadline of ${this.#bounds.deadlineMs ?? 0} ms passed during a model call`,
        };
      throw error;
    } finally {
      bounded.dispose();
    }
    this.#usage = addUsage(this.#usage, response.usage);
    if (raw !== undefined && response.usageEstimated !== true)
      this.#estimates.observe(raw, response.usage.input_tokens);
    hooks?.onUsage?.(response.usage, answeredBy(response));
    // The answer is recorded before it is reported: a crash after the call keeps it.
    if (response.text !== '') this.#text = response.text;
    this.#append({
      role: 'assistant',
      ...(response.text === '' ? {} : { text: response.text }),
      tool_calls: response.toolCalls.map(({ id, name, args }) => ({ id, name, args })),
      ...(response.reasoning === undefined ? {} : { reasoning: response.reasoning }),
      ts: this.#now(),
    });
    hooks?.onEvent?.({
      type: 'model.call',
      step: this.#steps,
      endpoint: response.endpointIndex,
      model: response.model,
      ms: this.#now() - started,
      inputTokens: response.usage.input_tokens,
      outputTokens: response.usage.output_tokens,
      finishReason: response.finishReason,
      toolCalls: response.toolCalls.length,
      ...(logContent === true ? { text: response.text } : { textChars: response.text.length }),
      ...(model === undefined ? {} : { requestModel: model }),
      ...usageSplits(response.usage),
      ...askedFields(response, digest, recordSystem(this.#options, system)),
    });
    return response;
  }

  /** Runs a round of tool calls; returns the model's `finish`, if it called it validly. */
  async #runTools(
    calls: readonly ModelToolCall[],
    signal: AbortSignal,
  ): Promise<Finish | undefined> {
    this.#toolCalls += calls.length;
    const { results, finish } = await runSessionTools(this.#options, calls, signal, {
      transcript: this.#transcript,
      step: this.#steps,
      offersFinish: this.#offersFinish(),
    });
    this.#transcript.push(...results);
    if (results.length > 0) commitOrder(this.#transcript);
    return finish;
  }

  #end(
    status: TerminalStatus,
    reason: string | undefined,
    finish?: Finish,
    captured?: { value: unknown },
  ): TurnReport {
    this.#options.hooks?.onEvent?.({
      type: 'loop.stop',
      status,
      ...(reason === undefined ? {} : { reason }),
    });
    return turnReport(
      {
        status,
        reason,
        ...(finish === undefined ? {} : { finish }),
        ...(captured === undefined ? {} : { captured }),
      },
      {
        messages: this.#transcript.slice(this.#start),
        text: this.#text,
        usage: this.#usage,
        rounds: this.#steps,
        toolCalls: this.#toolCalls,
      },
    );
  }
}
