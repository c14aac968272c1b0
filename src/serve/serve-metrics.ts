import { collectDefaultMetrics, Counter, Gauge, Histogram, Registry } from 'prom-client';
import type { ArborEvent } from '../runtime/index.js';
import { ParkedMetrics } from './parked-metrics.js';

/**
 * The metrics `arbor serve` exposes at `/metrics`, in Prometheus text. Every label has a bounded
 * set of values (statuses, endpoint indexes, tool kinds, gate names): never a run id, node id,
 * task id or URL. The names are listed in `docs/metrics.md`.
 */
export class ServeMetrics {
  readonly registry = new Registry();
  readonly #runsStarted: Counter<'source'>;
  readonly #runsFinished: Counter<'status'>;
  readonly #runsActive: Gauge;
  readonly #nodesActive: Gauge;
  readonly #tokens: Counter<'direction'>;
  readonly #tokenSplits: Counter<'type'>;
  readonly #cost: Counter;
  readonly #modelCalls: Counter<'endpoint'>;
  readonly #modelErrors: Counter<'endpoint' | 'kind'>;
  readonly #intelAllDown: Gauge;
  readonly #rateWaits: Counter<'endpoint' | 'limit'>;
  readonly #rateWaitSeconds: Histogram<'limit'>;
  readonly #toolCalls: Counter<'kind'>;
  readonly #toolErrors: Counter<'kind'>;
  readonly #refusals: Counter<'gate'>;
  readonly #gatesOpen: Gauge;
  readonly #spawns: Counter;
  readonly #restarts: Counter;
  readonly #killSteps: Counter<'step'>;
  readonly #tasksRefused: Counter<'reason'>;
  readonly #triggerRuns: Counter<'trigger' | 'result'>;
  readonly #ready: Gauge;
  readonly #draining: Gauge;
  readonly #parked: ParkedMetrics;

  constructor() {
    const registers = [this.registry];
    collectDefaultMetrics({ register: this.registry, prefix: 'arbor_' });
    const counter = <L extends string>(name: string, help: string, labelNames: L[] = []) =>
      new Counter<L>({ name, help, labelNames, registers });
    const gauge = (name: string, help: string) => new Gauge({ name, help, registers });
    this.#runsStarted = counter(
      'arbor_runs_started_total',
      'Runs started, by what started them (a2a, resume).',
      ['source'],
    );
    this.#runsFinished = counter(
      'arbor_runs_finished_total',
      'Runs ended, by status (completed, failed, refused, cancelled, …).',
      ['status'],
    );
    this.#runsActive = gauge('arbor_runs_active', 'Runs going now.');
    this.#nodesActive = gauge('arbor_nodes_active', 'Nodes (agents) alive now across every run.');
    this.#tokens = counter(
      'arbor_tokens_total',
      'Model tokens used, by direction (input, output).',
      ['direction'],
    );
    this.#tokenSplits = counter(
      'arbor_token_splits_total',
      'Of the tokens in arbor_tokens_total, those the provider reported by type: cache_read and cache_write (input; cache_write_1h counts the one-hour writes among them) and reasoning (output).',
      ['type'],
    );
    this.#cost = counter(
      'arbor_cost_usd_total',
      'Cost of model calls in US dollars, where priced.',
    );
    this.#modelCalls = counter(
      'arbor_model_calls_total',
      'Model calls answered, by endpoint index (0 is the first endpoint).',
      ['endpoint'],
    );
    this.#modelErrors = counter(
      'arbor_model_errors_total',
      'Failed attempts at a model endpoint (retried or not), by endpoint index and failure kind.',
      ['endpoint', 'kind'],
    );
    this.#intelAllDown = gauge(
      'arbor_intel_all_down',
      '1 while every intelligence endpoint is down.',
    );
    this.#rateWaits = counter(
      'arbor_intel_rate_waits_total',
      "Model calls that waited for a provider's rate limit (as its response headers reported it) instead of being refused, by endpoint index and limit (requests, tokens, input_tokens, output_tokens).",
      ['endpoint', 'limit'],
    );
    this.#rateWaitSeconds = new Histogram<'limit'>({
      name: 'arbor_intel_rate_wait_seconds',
      help: "How long model calls waited for a provider's rate limit, by limit.",
      labelNames: ['limit'],
      buckets: [0.1, 0.5, 1, 2, 5, 10, 30, 60, 120],
      registers,
    });
    this.#toolCalls = counter(
      'arbor_tool_calls_total',
      'Tool calls, by kind (fs, exec, http, subagent, memory, ask_human, sleep, other).',
      ['kind'],
    );
    this.#toolErrors = counter(
      'arbor_tool_errors_total',
      'Tool calls whose result was an error, by kind.',
      ['kind'],
    );
    this.#refusals = counter(
      'arbor_refusals_total',
      'Refusals, by the gate that refused (spawn, policy, trifecta, task).',
      ['gate'],
    );
    this.#gatesOpen = gauge('arbor_gates_open', 'Questions waiting for a person now.');
    this.#spawns = counter('arbor_spawns_total', 'Nodes spawned.');
    this.#restarts = counter('arbor_restarts_total', 'Node restarts after a crash.');
    this.#killSteps = counter(
      'arbor_kill_ladder_steps_total',
      'Kill-ladder rungs climbed, by rung (cancel, sigterm, sigkill).',
      ['step'],
    );
    this.#tasksRefused = counter(
      'arbor_tasks_refused_total',
      'A2A tasks refused before a run started, by reason (capacity, draining, principal_runs, principal_tokens).',
      ['reason'],
    );
    this.#triggerRuns = counter(
      'arbor_trigger_runs_total',
      'Runs triggers and self-schedules started or skipped, by trigger (its name; `self` for what agents scheduled) and result (started, skipped_overlap, refused).',
      ['trigger', 'result'],
    );
    this.#ready = gauge('arbor_ready', '1 while /readyz says ready.');
    this.#draining = gauge('arbor_draining', '1 while the server drains.');
    for (const status of ['input', 'output']) this.#tokens.inc({ direction: status }, 0);
    for (const type of TOKEN_SPLITS.map(([, label]) => label)) this.#tokenSplits.inc({ type }, 0);
    this.#intelAllDown.set(0);
    this.#parked = new ParkedMetrics(this.registry);
  }

  runStarted(source: 'a2a' | 'resume' | 'trigger' | 'schedule'): void {
    this.#runsStarted.inc({ source });
    this.#runsActive.inc();
  }

  runFinished(status: string): void {
    this.#runsFinished.inc({ status });
    this.#runsActive.dec();
  }

  taskRefused(reason: 'capacity' | 'draining' | 'principal_runs' | 'principal_tokens'): void {
    this.#tasksRefused.inc({ reason });
    this.#refusals.inc({ gate: 'task' });
  }

  triggerRun(trigger: string, result: 'started' | 'skipped_overlap' | 'refused'): void {
    this.#triggerRuns.inc({ trigger, result });
  }

  intelAllDown(down: boolean): void {
    this.#intelAllDown.set(down ? 1 : 0);
  }

  ready(ready: boolean, draining: boolean): void {
    this.#ready.set(ready ? 1 : 0);
    this.#draining.set(draining ? 1 : 0);
  }

  /** Counts what one run event says. */
  observe(event: ArborEvent): void {
    const count = this.#counts[event.type] as ((event: ArborEvent) => void) | undefined;
    count?.(event);
    this.#parked.observe(event);
  }

  /** What each kind of event counts for; the others count for nothing. */
  readonly #counts: {
    [K in ArborEvent['type']]?: (event: Extract<ArborEvent, { type: K }>) => void;
  } = {
    'node.spawned': () => {
      this.#spawns.inc();
      this.#nodesActive.inc();
    },
    'node.resumed': () => {
      this.#nodesActive.inc();
    },
    'node.end': () => {
      this.#nodesActive.dec();
    },
    'node.restart': () => {
      this.#restarts.inc();
    },
    usage: (event) => {
      this.#tokens.inc({ direction: 'input' }, event.inputTokens);
      this.#tokens.inc({ direction: 'output' }, event.outputTokens);
      for (const [field, type] of TOKEN_SPLITS) {
        const tokens = event[field];
        if (tokens !== undefined) this.#tokenSplits.inc({ type }, tokens);
      }
      if (event.costUsd !== undefined) this.#cost.inc(event.costUsd);
    },
    'model.call': (event) => {
      this.#modelCalls.inc({ endpoint: endpointLabel(event.endpoint) });
    },
    'model.error': (event) => {
      this.#modelErrors.inc({
        endpoint: endpointLabel(event.endpoint),
        kind: errorKind(event.kind),
      });
    },
    'intel.health': (event) => {
      this.intelAllDown(event.allDown);
    },
    'intel.rate_wait': (event) => {
      this.#rateWaits.inc({ endpoint: endpointLabel(event.endpoint), limit: event.limit });
      this.#rateWaitSeconds.observe({ limit: event.limit }, event.waitedMs / 1000);
    },
    'tool.call': (event) => {
      this.#toolCalls.inc({ kind: toolKind(event.name) });
    },
    'tool.result': (event) => {
      if (event.isError) this.#toolErrors.inc({ kind: toolKind(event.name) });
    },
    'spawn.refused': () => {
      this.#refusals.inc({ gate: 'spawn' });
    },
    'policy.decision': (event) => {
      if (event.action === 'deny') this.#refusals.inc({ gate: 'policy' });
    },
    'trifecta.held': () => {
      this.#refusals.inc({ gate: 'trifecta' });
    },
    'gate.opened': () => {
      this.#gatesOpen.inc();
    },
    'gate.closed': () => {
      this.#gatesOpen.dec();
    },
    'child.killed': (event) => {
      for (const step of event.steps) {
        const name = (step as { step?: unknown }).step;
        if (name === 'cancel' || name === 'sigterm' || name === 'sigkill')
          this.#killSteps.inc({ step: name });
      }
    },
  };

  /** The exposition text. */
  async text(): Promise<{ contentType: string; body: string }> {
    return { contentType: this.registry.contentType, body: await this.registry.metrics() };
  }
}

/** The split counts of a `usage` event and their `type` label. */
const TOKEN_SPLITS = [
  ['cacheReadTokens', 'cache_read'],
  ['cacheWriteTokens', 'cache_write'],
  ['cacheWrite1hTokens', 'cache_write_1h'],
  ['reasoningTokens', 'reasoning'],
] as const;

/** arbor's own tool families; any other name (an MCP or host tool, or one the model made up) is `other`. */
const KINDS = new Set([
  'fs',
  'exec',
  'http',
  'subagent',
  'memory',
  'ask_human',
  'sleep',
  'schedule',
  'resource',
  'finish',
]);

/** A tool's kind, from a bounded set: arbor's families by the part of the name before its first dot (`fs.read` → `fs`), else `other`. */
function toolKind(name: string): string {
  const dot = name.indexOf('.');
  const family = dot < 0 ? name : name.slice(0, dot);
  return KINDS.has(family) ? family : 'other';
}

const ERROR_KINDS = new Set([
  'connection',
  'timeout',
  'stream_error',
  'auth',
  'bad_request',
  'bad_response',
  'cancelled',
]);

/** A failure kind as a label, from a bounded set: HTTP statuses by class (`status_5xx`). */
function errorKind(kind: string): string {
  const status = /^status_([1-5])\d\d$/.exec(kind);
  if (status !== null) return `status_${status[1] ?? ''}xx`;
  return ERROR_KINDS.has(kind) ? kind : 'other';
}

/** An endpoint index as a label: a config holds at most a few; anything else is `other`. */
function endpointLabel(index: number): string {
  return Number.isInteger(index) && index >= 0 && index < 64 ? String(index) : 'other';
}
