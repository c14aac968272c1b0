import { z } from 'zod';
import { ArborError } from './errors.js';
import { formatIssues } from './issues.js';
import type { JsonObject } from './primitives.js';
import {
  RUN_EVENT_FIELDS,
  RUN_EVENT_TYPES,
  type RunEvent,
  type RunEventArgs,
  type RunEventBody,
  type RunEventBodyOf,
  type RunEventType,
} from './run-events.js';
import type { EventLine } from './run-views.js';
import { CHILD_EVENT_TYPES, type ChildEvent, type ChildEventType } from './child-events.js';

/**
 * One codec between run events and their wire forms: the NDJSON lines `arbor run` writes (`ts`,
 * `run_id`, `node_id`, `path`, `event`, then the fields in snake_case), the store's records (`kind`
 * and snake_case `data`), and a child's `event` frames (`event` and snake_case `fields`). Only
 * top-level field names are converted; values (a tool's arguments, a trajectory) pass as they are.
 */

/**
 * Types whose stored and NDJSON name differs from their one name inside (the code, the API,
 * traces): they are written with the name stores and scripts have always had, and either name
 * reads back as the type.
 */
const WIRE_NAMES: Partial<Record<RunEventType, string>> = { 'gate.opened': 'gate.open' };
const TYPES_BY_WIRE_NAME = new Map<string, RunEventType>([
  ...RUN_EVENT_TYPES.map((type): [string, RunEventType] => [type, type]),
  ...Object.entries(WIRE_NAMES).map(([type, wire]): [string, RunEventType] => [
    wire,
    type as RunEventType,
  ]),
]);
const BASE_KEYS = new Set(['type', 'ts', 'runId', 'nodeId', 'path']);
const LINE_KEYS = new Set(['ts', 'run_id', 'node_id', 'path', 'event']);

/**
 * Field names converted so far, each way: the same few names come again and again. Bounded, as a
 * child names the fields of its events.
 */
const SNAKE = new Map<string, string>();
const CAMEL = new Map<string, string>();
const NAMES_KEPT = 1024;

function remember(cache: Map<string, string>, key: string, name: string): string {
  if (cache.size < NAMES_KEPT) cache.set(key, name);
  return name;
}

export function toSnake(key: string): string {
  return (
    SNAKE.get(key) ??
    remember(
      SNAKE,
      key,
      key.replace(/[A-Z]/g, (c) => `_${c.toLowerCase()}`),
    )
  );
}

export function toCamel(key: string): string {
  if (!key.includes('_')) return key;
  return (
    CAMEL.get(key) ??
    remember(
      CAMEL,
      key,
      key.replace(/_([a-z0-9])/g, (_, c: string) => c.toUpperCase()),
    )
  );
}

/** The type a wire name stands for; `undefined` for a name this arbor does not know. */
export function typeOfWireName(name: string): RunEventType | undefined {
  return TYPES_BY_WIRE_NAME.get(name);
}

/** The name an event type is written with in the store and the NDJSON. */
export function wireNameOf(type: RunEventType): string {
  return WIRE_NAMES[type] ?? type;
}

/** The NDJSON line object of an event (the library's name for `toEventLine`). */
export function toWireEvent(event: RunEvent): Record<string, unknown> {
  return toEventLine(event);
}

/** The NDJSON line object of an event. */
export function toEventLine(event: RunEvent): EventLine {
  const line: EventLine = {
    ts: event.ts,
    run_id: event.runId,
    ...(event.nodeId === undefined ? {} : { node_id: event.nodeId }),
    ...(event.path === undefined ? {} : { path: event.path }),
    event: wireNameOf(event.type),
  };
  for (const [key, value] of Object.entries(event))
    if (!BASE_KEYS.has(key) && value !== undefined) line[toSnake(key)] = value;
  return line;
}

/** The event an NDJSON line object holds; an unknown event name is an error naming it. */
export function fromWireEvent(line: Record<string, unknown>): RunEvent {
  const name = line.event;
  if (typeof name !== 'string')
    throw new ArborError('protocol_violation', 'An event line has no `event` name.');
  const type = typeOfWireName(name);
  if (type === undefined) throw new ArborError('protocol_violation', `Unknown event \`${name}\`.`);
  if (typeof line.ts !== 'string' || typeof line.run_id !== 'string')
    throw new ArborError('protocol_violation', `Event \`${name}\` has no \`ts\` or \`run_id\`.`);
  const event: Record<string, unknown> = {};
  for (const [key, value] of Object.entries(line))
    if (!LINE_KEYS.has(key)) event[toCamel(key)] = value;
  event.type = type;
  event.ts = line.ts;
  event.runId = line.run_id;
  if (typeof line.node_id === 'string') event.nodeId = line.node_id;
  if (typeof line.path === 'string') event.path = line.path;
  // Lenient on purpose: a line of a known type is taken as it is (its fields are not checked).
  return event as RunEvent;
}

/** The event reported as `(type, fields)`. */
export function eventBody<K extends RunEventType>(
  ...[type, fields]: RunEventArgs<K>
): RunEventBodyOf<K> {
  return { type, ...fields } as RunEventBodyOf<K>;
}

/** What the store keeps of an event: its wire name and its fields in snake_case. */
export function toStoredEvent(event: RunEventBody): {
  kind: string;
  data: Record<string, unknown>;
} {
  const data: Record<string, unknown> = {};
  const fields: Record<string, unknown> = event;
  for (const key in fields) {
    const value = fields[key];
    if (key !== 'type' && value !== undefined) data[toSnake(key)] = value;
  }
  return { kind: wireNameOf(event.type), data };
}

/**
 * A stored event as the API gives it. A kind this arbor does not know (recorded by another version)
 * is an `event.unknown` event holding its stored name and data as they are: the API's history, the
 * CLI and the dashboard all read stored events through here, so they show the same.
 */
export function fromStoredEvent(
  record: { kind: string; data: Record<string, unknown>; ts: number; nodeId?: string },
  runId: string,
  path: string | undefined,
): RunEvent {
  const base = {
    ts: new Date(record.ts).toISOString(),
    runId,
    ...(record.nodeId === undefined ? {} : { nodeId: record.nodeId }),
    ...(record.nodeId === undefined || path === undefined ? {} : { path }),
  };
  if (typeOfWireName(record.kind) === undefined)
    return { type: 'event.unknown', ...base, name: record.kind, fields: record.data };
  return fromWireEvent({
    ...record.data,
    ts: base.ts,
    run_id: runId,
    ...(base.nodeId === undefined ? {} : { node_id: base.nodeId }),
    ...(base.path === undefined ? {} : { path: base.path }),
    event: record.kind,
  });
}

/**
 * The `event` frame a child sends for an event it reports: its wire name and its fields in
 * snake_case, as `readChildEvent` reads them back.
 */
export function toEventFrame(event: ChildEvent): {
  type: 'event';
  event: string;
  fields: JsonObject;
} {
  const { kind, data } = toStoredEvent(event);
  return { type: 'event', event: kind, fields: data };
}

const CHILD_TYPES: ReadonlySet<string> = new Set(CHILD_EVENT_TYPES);

/**
 * Field schemas of the events a child reports, compiled from their second use on (as frame
 * schemas are, see `decode.ts`): `text.delta` arrives by the thousand, most others a few times.
 */
const compiledSchemas = new Map<ChildEventType, z.ZodType>();
const seenOnce = new Set<ChildEventType>();

function childSchema(type: ChildEventType): z.ZodType {
  const compiled = compiledSchemas.get(type);
  if (compiled !== undefined) return compiled;
  if (!seenOnce.has(type)) {
    seenOnce.add(type);
    return RUN_EVENT_FIELDS[type];
  }
  const schema = z.compile(RUN_EVENT_FIELDS[type]);
  compiledSchemas.set(type, schema);
  return schema;
}

/**
 * The event a child's `event` frame reports, checked against its schema: the edge where a child's
 * events enter the run, and the only place they are checked. A name that is not an event a child
 * reports, or fields that do not match, come back as the reason. Fields the schema does not name
 * are kept, as the child sent them.
 */
export function readChildEvent(
  name: string,
  fields: JsonObject,
): { ok: true; event: ChildEvent } | { ok: false; reason: string } {
  if (!CHILD_TYPES.has(name)) {
    const reason =
      typeOfWireName(name) === undefined
        ? `unknown event \`${name.slice(0, 60)}\``
        : `\`${name}\` is the supervisor's to record, not a child's to report`;
    return { ok: false, reason };
  }
  const type = name as ChildEventType;
  const event: Record<string, unknown> = {};
  for (const key in fields) event[toCamel(key)] = fields[key];
  const checked = childSchema(type).safeParse(event, { reportInput: true });
  if (!checked.success)
    return { ok: false, reason: `\`${name}\`: ${formatIssues(checked.error.issues)}` };
  event.type = type;
  return { ok: true, event: event as ChildEvent };
}
