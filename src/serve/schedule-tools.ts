import { z } from 'zod';
import { MAX_DURATION_MS, parseDuration } from '../config/index.js';
import { defineTool, type HostTool, type HostToolContext } from '../tools/index.js';
import type { Triggers } from './triggers.js';

/** What the tools need of the server, set once it is built (the tools are made before it). */
export interface ScheduleHost {
  triggers?: Triggers;
  /** The principal whose task a run is, for the runs it schedules. */
  ownerOf?(runId: string): string | undefined;
}

/** Self-schedules run at least this far apart (`schedule.every`). */
const MIN_EVERY_MS = 1000;

/**
 * The tools an agent under `arbor serve` schedules itself with (a task's root only): `schedule.at`, `schedule.every`,
 * `resource.subscribe` and `schedule.cancel`. Served by the supervisor; each request is written
 * to the store before the tool answers, and the runs it starts are the principal's whose task
 * asked. `arbor run` does not offer them: a one-shot run has nothing to honour them.
 */
export function scheduleTools(host: ScheduleHost): HostTool[] {
  const context = (ctx: HostToolContext): { triggers: Triggers; owner: string } => {
    // Only a task's root schedules: a sub-agent holds a narrowed grant, and a run it started
    // later would hold the root's.
    if (ctx.depth > 0)
      throw new Error(
        'only the root agent of a task schedules runs; say so in your answer instead',
      );
    const triggers = host.triggers;
    const owner = host.ownerOf?.(ctx.runId);
    if (triggers === undefined || owner === undefined)
      throw new Error('this run is not one of the server’s tasks, so it cannot schedule runs');
    return { triggers, owner };
  };
  const duration = (text: string, name: string): number => parseDuration(text, name);
  return [
    defineTool({
      name: 'schedule.at',
      // What it starts later acts on what this agent wrote now: the trifecta judges it as egress.
      tags: ['egress'],
      description:
        'Start a new run later with an instruction: after a duration (`after: "10m"`) or at a time (`at`, ISO 8601). Returns the schedule id.',
      input: z.strictObject({
        instruction: z.string().min(1).describe('What the later run is to do (self-contained).'),
        after: z.string().optional().describe('How long from now: `30s`, `10m`, `2h`, `1d`.'),
        at: z.string().optional().describe('When, as an ISO 8601 time.'),
      }),
      run: ({ instruction, after, at }, ctx) => {
        if ((after === undefined) === (at === undefined))
          throw new Error('give exactly one of `after` (a duration) or `at` (a time)');
        let afterMs: number;
        if (after !== undefined) afterMs = duration(after, '`after`');
        else {
          const when = Date.parse(at ?? '');
          if (Number.isNaN(when)) throw new Error(`\`at\` is not an ISO 8601 time: ${at ?? ''}`);
          afterMs = Math.max(0, when - Date.now());
          if (afterMs > MAX_DURATION_MS) throw new Error('`at` is more than 24 days away');
        }
        const { triggers, owner } = context(ctx);
        const record = triggers.scheduleAt(owner, afterMs, instruction, ctx.runId);
        return { schedule: record.id, at: new Date(record.nextAt ?? Date.now()).toISOString() };
      },
    }),
    defineTool({
      name: 'schedule.every',
      // What it starts later acts on what this agent wrote now: the trifecta judges it as egress.
      tags: ['egress'],
      description:
        'Start a new run with an instruction every so often (`every: "1h"`), `times` times or until cancelled. Returns the schedule id.',
      input: z.strictObject({
        instruction: z.string().min(1).describe('What each run is to do (self-contained).'),
        every: z.string().describe('How often: `1m`, `1h`, `1d` (at least `1s`).'),
        times: z
          .number()
          .int()
          .positive()
          .optional()
          .describe('How many runs in all; absent: until cancelled.'),
      }),
      run: ({ instruction, every, times }, ctx) => {
        const everyMs = duration(every, '`every`');
        if (everyMs < MIN_EVERY_MS) throw new Error('`every` must be at least 1s');
        const { triggers, owner } = context(ctx);
        const record = triggers.scheduleEvery(owner, everyMs, instruction, times, ctx.runId);
        return { schedule: record.id, first: new Date(record.nextAt ?? Date.now()).toISOString() };
      },
    }),
    defineTool({
      name: 'resource.subscribe',
      // What it starts later acts on what this agent wrote now: the trifecta judges it as egress.
      tags: ['egress'],
      description:
        'Start a new run with an instruction whenever an MCP resource changes (the run is given its new content). Returns the subscription id.',
      input: z.strictObject({
        server: z.string().min(1).describe('The MCP server, by its configured name.'),
        uri: z.string().min(1).describe('The resource URI.'),
        instruction: z.string().min(1).describe('What each run is to do with the new content.'),
      }),
      run: async ({ server, uri, instruction }, ctx) => {
        const { triggers, owner } = context(ctx);
        const record = await triggers.subscribe(owner, server, uri, instruction, ctx.runId);
        return { subscription: record.id };
      },
    }),
    defineTool({
      name: 'schedule.cancel',
      description:
        'Cancel a schedule or subscription made with schedule.at, schedule.every or resource.subscribe.',
      input: z.strictObject({ id: z.string().min(1).describe('The id the tool returned.') }),
      run: ({ id }, ctx) => {
        const { triggers, owner } = context(ctx);
        if (!triggers.cancel(owner, id)) throw new Error(`no schedule \`${id}\` of yours`);
        return { cancelled: id };
      },
    }),
  ];
}
