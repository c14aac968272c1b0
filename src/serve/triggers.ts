import { randomUUID } from 'node:crypto';
import { Cron } from 'croner';
import { parseDuration, type TriggerEntry } from '../config/index.js';
import { ArborError } from '../protocol/index.js';
import type { ScheduleRecord } from '../store/index.js';
import type { SqliteTasks } from '../store/sqlite-tasks.js';
import type { LiveTask } from './live-task.js';
import type { ResourceContent, ResourceWatch } from './resource-watch.js';
import type { ServeMetrics } from './serve-metrics.js';
import { isFinal } from './task-shapes.js';
import type { TaskService } from './task-service.js';

/** The most a timer can wait at once (Node's limit, about 24.8 days); longer waits are chained. */
const MAX_TIMER_MS = 2 ** 31 - 1;
/** Resource content given to a run, at most (the rest is cut, and says so). */
const MAX_CONTENT_CHARS = 64 * 1024;
/** How long a schedule that came due while the server said no waits before it tries again. */
const RETRY_REFUSED_MS = 30_000;

type FireResult = 'started' | 'skipped_overlap' | 'refused';

/** Schedules and subscriptions one principal's agents may hold at once. */
const MAX_SCHEDULES_PER_OWNER = 100;

export interface TriggersOptions {
  tasks: TaskService;
  store: SqliteTasks;
  metrics: ServeMetrics;
  watch: ResourceWatch;
  triggers: readonly TriggerEntry[];
  /** A problem worth an operator's eye (a subscription that failed to fire), for stderr. */
  warn(line: string): void;
  now?: () => number;
}

/**
 * What starts runs without a request: the configured `[[serve.trigger]]`s (`every`, `cron`,
 * `mcp_resource`) and what agents scheduled for themselves (`schedule.at`, `schedule.every`,
 * `resource.subscribe`). Self-schedules are durable: written before the tool answers, re-armed
 * after a restart (an `at` that came due while the server was down fires at once), and every
 * subscription is read once at once after a restart, so a change missed while down is not lost.
 * A trigger whose last run is still going is skipped, and counted; every run obeys the server's
 * capacity and drain.
 */
export class Triggers {
  readonly #o: TriggersOptions;
  readonly #now: () => number;
  readonly #running = new Map<string, LiveTask>();
  readonly #timers = new Map<string, NodeJS.Timeout>();
  readonly #crons: Cron[] = [];
  /** Schedules cancelled while this server runs: a change still in flight for one is not run. */
  readonly #cancelled = new Set<string>();
  #closed = false;

  constructor(options: TriggersOptions) {
    this.#o = options;
    this.#now = options.now ?? Date.now;
  }

  /** Arms every trigger and every recorded schedule; a trigger that cannot be armed throws, naming it. */
  async start(): Promise<void> {
    for (const trigger of this.#o.triggers) await this.#arm(trigger);
    for (const schedule of this.#o.store.schedules()) await this.#armSchedule(schedule, true);
  }

  async close(): Promise<void> {
    this.#closed = true;
    for (const timer of this.#timers.values()) clearTimeout(timer);
    this.#timers.clear();
    for (const cron of this.#crons) cron.stop();
    await this.#o.watch.close();
  }

  /** `schedule.at`: one run of `instruction` after `afterMs`. */
  scheduleAt(owner: string, afterMs: number, instruction: string, source?: string): ScheduleRecord {
    return this.#add({
      kind: 'at',
      owner,
      instruction,
      nextAt: this.#now() + afterMs,
      ...(source === undefined ? {} : { source }),
    });
  }

  /** `schedule.every`: a run of `instruction` every `everyMs`, `times` times (absent: until removed). */
  scheduleEvery(
    owner: string,
    everyMs: number,
    instruction: string,
    times: number | undefined,
    source?: string,
  ): ScheduleRecord {
    return this.#add({
      kind: 'every',
      owner,
      instruction,
      everyMs,
      nextAt: this.#now() + everyMs,
      ...(times === undefined ? {} : { remaining: times }),
      ...(source === undefined ? {} : { source }),
    });
  }

  /** `resource.subscribe`: a run of `instruction` whenever the resource changes. */
  async subscribe(
    owner: string,
    server: string,
    uri: string,
    instruction: string,
    source?: string,
  ): Promise<ScheduleRecord> {
    const record = this.#record({
      kind: 'subscription',
      owner,
      instruction,
      server,
      uri,
      ...(source === undefined ? {} : { source }),
    });
    // Subscribed first: a server that refuses leaves nothing recorded.
    await this.#watchSchedule(record);
    this.#o.store.putSchedule(record);
    return record;
  }

  /** Removes one of `owner`'s schedules; false when it has none of that id. */
  cancel(owner: string, id: string): boolean {
    const record = this.#o.store.schedules().find((s) => s.id === id && s.owner === owner);
    if (record === undefined) return false;
    clearTimeout(this.#timers.get(id));
    this.#timers.delete(id);
    this.#cancelled.add(id);
    if (record.server !== undefined && record.uri !== undefined)
      this.#o.watch.unwatch(record.server, record.uri, id);
    return this.#o.store.deleteSchedule(id);
  }

  #record(fields: Omit<ScheduleRecord, 'id' | 'createdAt'>): ScheduleRecord {
    const held = this.#o.store.schedules().filter((s) => s.owner === fields.owner).length;
    if (held >= MAX_SCHEDULES_PER_OWNER)
      throw new ArborError(
        'usage',
        `${fields.owner} already holds ${held} schedules and subscriptions, the most there may be (${MAX_SCHEDULES_PER_OWNER}).`,
      );
    return { ...fields, id: `sch_${randomUUID()}`, createdAt: this.#now() };
  }

  #add(fields: Omit<ScheduleRecord, 'id' | 'createdAt'>): ScheduleRecord {
    const record = this.#record(fields);
    this.#o.store.putSchedule(record);
    void this.#armSchedule(record, false);
    return record;
  }

  async #arm(trigger: TriggerEntry): Promise<void> {
    const key = `trigger:${trigger.name}`;
    const fire = (instruction: string): void => {
      this.#fire(key, trigger.name, `trigger:${trigger.name}`, instruction, 'trigger', {
        'arbor/trigger': trigger.name,
      });
    };
    if (trigger.every !== undefined) {
      const everyMs = parseDuration(trigger.every, `[[serve.trigger]] ${trigger.name}: every`);
      const tick = (): void => {
        this.#later(key, everyMs, () => {
          fire(trigger.instruction);
          tick();
        });
      };
      tick();
      return;
    }
    if (trigger.cron !== undefined) {
      try {
        this.#crons.push(
          new Cron(trigger.cron, { timezone: 'UTC', catch: true }, () => {
            fire(trigger.instruction);
          }),
        );
      } catch (error) {
        throw new ArborError(
          'config',
          `[[serve.trigger]] ${trigger.name}: cron \`${trigger.cron}\`: ${error instanceof Error ? error.message : String(error)}`,
        );
      }
      return;
    }
    const resource = trigger.mcp_resource;
    if (resource === undefined) return;
    const debounceMs =
      trigger.debounce === undefined
        ? 250
        : parseDuration(trigger.debounce, `[[serve.trigger]] ${trigger.name}: debounce`);
    try {
      await this.#o.watch.watch(
        resource.server,
        {
          id: `trigger:${trigger.name}`,
          uri: resource.uri,
          debounceMs,
          onChange: (content) => {
            fire(withContent(trigger.instruction, resource.server, content));
          },
          onError: (error) => {
            this.#o.warn(`trigger ${trigger.name}: cannot read ${resource.uri}: ${error.message}`);
          },
        },
        resource.setup_tool,
      );
    } catch (error) {
      throw new ArborError(
        'config',
        `[[serve.trigger]] ${trigger.name}: cannot subscribe to ${resource.uri} on MCP server \`${resource.server}\`: ${error instanceof Error ? error.message : String(error)}`,
      );
    }
  }

  async #armSchedule(record: ScheduleRecord, restarted: boolean): Promise<void> {
    if (record.kind === 'subscription') {
      try {
        await this.#watchSchedule(record);
        if (restarted && record.server !== undefined && record.uri !== undefined) {
          // What changed while the server was down is read now.
          const content = await this.#o.watch.read(record.server, record.uri);
          this.#fireSchedule(record, withContent(record.instruction, record.server, content));
        }
      } catch (error) {
        this.#o.warn(
          `subscription ${record.id} (${record.uri ?? ''}): ${error instanceof Error ? error.message : String(error)}`,
        );
      }
      return;
    }
    const due = Math.max(0, (record.nextAt ?? this.#now()) - this.#now());
    this.#later(record.id, due, () => {
      const fired = this.#fireSchedule(record, record.instruction);
      if (record.kind === 'at') {
        // Refused now (capacity, a drain, a limit): tried again later, not lost.
        if (fired === 'refused') {
          const next = { ...record, nextAt: this.#now() + RETRY_REFUSED_MS };
          this.#o.store.putSchedule(next);
          void this.#armSchedule(next, false);
        } else this.#o.store.deleteSchedule(record.id);
        return;
      }
      const remaining =
        record.remaining === undefined || fired !== 'started'
          ? record.remaining
          : record.remaining - 1;
      if (remaining !== undefined && remaining <= 0) {
        this.#o.store.deleteSchedule(record.id);
        return;
      }
      const next: ScheduleRecord = {
        ...record,
        nextAt: this.#now() + (record.everyMs ?? 0),
        ...(remaining === undefined ? {} : { remaining }),
      };
      this.#o.store.putSchedule(next);
      void this.#armSchedule(next, false);
    });
  }

  async #watchSchedule(record: ScheduleRecord): Promise<void> {
    const { server, uri } = record;
    if (server === undefined || uri === undefined) return;
    await this.#o.watch.watch(server, {
      id: record.id,
      uri,
      debounceMs: 250,
      onChange: (content) => {
        // A subscription cancelled since is not run.
        if (!this.#cancelled.has(record.id))
          this.#fireSchedule(record, withContent(record.instruction, server, content));
      },
      onError: (error) => {
        this.#o.warn(`subscription ${record.id}: cannot read ${uri}: ${error.message}`);
      },
    });
  }

  #fireSchedule(record: ScheduleRecord, instruction: string): FireResult {
    return this.#fire(record.id, 'self', record.owner, instruction, 'schedule', {
      'arbor/schedule': record.id,
      ...(record.source === undefined ? {} : { 'arbor/scheduledBy': record.source }),
    });
  }

  /** Starts a run for a trigger or schedule, unless its last run is still going or the server says no. */
  #fire(
    key: string,
    label: string,
    owner: string,
    instruction: string,
    source: 'trigger' | 'schedule',
    metadata: Record<string, unknown>,
  ): FireResult {
    if (this.#closed) return 'refused';
    const last = this.#running.get(key);
    if (last !== undefined && !isFinal(last.state)) {
      this.#o.metrics.triggerRun(label, 'skipped_overlap');
      return 'skipped_overlap';
    }
    try {
      const live = this.#o.tasks.startBy(owner, instruction, source, metadata);
      this.#running.set(key, live);
      void live.done.then(() => {
        if (this.#running.get(key) === live) this.#running.delete(key);
      });
      this.#o.metrics.triggerRun(label, 'started');
      return 'started';
    } catch (error) {
      this.#o.metrics.triggerRun(label, 'refused');
      this.#o.warn(
        `${label === 'self' ? `schedule ${key}` : `trigger ${label}`}: not started: ${error instanceof Error ? error.message : String(error)}`,
      );
      return 'refused';
    }
  }

  /** Calls `fn` after `ms`, however long (chained past Node's timer limit); one timer per key. */
  #later(key: string, ms: number, fn: () => void): void {
    if (this.#closed) return;
    clearTimeout(this.#timers.get(key));
    const step = Math.min(ms, MAX_TIMER_MS);
    const timer = setTimeout(() => {
      this.#timers.delete(key);
      if (step < ms) this.#later(key, ms - step, fn);
      else fn();
    }, step);
    timer.unref();
    this.#timers.set(key, timer);
  }
}

/** The instruction of a run a resource change started, with the resource's new content. */
function withContent(instruction: string, server: string, content: ResourceContent): string {
  const text =
    content.text.length > MAX_CONTENT_CHARS
      ? `${content.text.slice(0, MAX_CONTENT_CHARS)}\n[… ${content.text.length - MAX_CONTENT_CHARS} more characters cut]`
      : content.text;
  return `${instruction}\n\nThe resource ${content.uri} (MCP server \`${server}\`) changed. Its content now:\n${text}`;
}
