import { ArborError } from '../protocol/index.js';
import type { SupervisorEvent } from '../supervisor/index.js';
import { EVENT_TYPES, type ArborEvent, type ArborEventType } from './events.js';

/**
 * One codec between the API's events and the NDJSON lines `arbor run` writes (`ts`, `run_id`,
 * `node_id`, `path`, `event`, then the event's fields in snake_case). Only top-level field names
 * are converted; values (a tool's arguments, a trajectory) pass as they are.
 */

/** API names whose wire name differs. */
const WIRE_NAMES: Partial<Record<ArborEventType, string>> = { 'gate.opened': 'gate.open' };
const API_NAMES = new Map(Object.entries(WIRE_NAMES).map(([api, wire]) => [wire, api]));
const KNOWN = new Set<string>(EVENT_TYPES);
const BASE_KEYS = new Set(['type', 'ts', 'runId', 'nodeId', 'path']);

function toSnake(key: string): string {
  return key.replace(/[A-Z]/g, (c) => `_${c.toLowerCase()}`);
}

export function toCamel(key: string): string {
  return key.replace(/_([a-z0-9])/g, (_, c: string) => c.toUpperCase());
}

/** The NDJSON line object of an event. */
export function toWireEvent(event: ArborEvent): Record<string, unknown> {
  const line: Record<string, unknown> = {
    ts: event.ts,
    run_id: event.runId,
    ...(event.nodeId === undefined ? {} : { node_id: event.nodeId }),
    ...(event.path === undefined ? {} : { path: event.path }),
    event: WIRE_NAMES[event.type] ?? event.type,
  };
  for (const [key, value] of Object.entries(event))
    if (!BASE_KEYS.has(key) && value !== undefined) line[toSnake(key)] = value;
  return line;
}

/** The event an NDJSON line object holds; an unknown event name is an error naming it. */
export function fromWireEvent(line: Record<string, unknown>): ArborEvent {
  const name = line.event;
  if (typeof name !== 'string')
    throw new ArborError('protocol_violation', 'An event line has no `event` name.');
  const type = API_NAMES.get(name) ?? name;
  if (!KNOWN.has(type)) throw new ArborError('protocol_violation', `Unknown event \`${name}\`.`);
  if (typeof line.ts !== 'string' || typeof line.run_id !== 'string')
    throw new ArborError('protocol_violation', `Event \`${name}\` has no \`ts\` or \`run_id\`.`);
  const event: Record<string, unknown> = { type, ts: line.ts, runId: line.run_id };
  if (typeof line.node_id === 'string') event.nodeId = line.node_id;
  if (typeof line.path === 'string') event.path = line.path;
  for (const [key, value] of Object.entries(line)) {
    if (['ts', 'run_id', 'node_id', 'path', 'event'].includes(key)) continue;
    event[toCamel(key)] = value;
  }
  return event as ArborEvent;
}

/** Builds the API event for what the supervisor reported; `undefined` for a kind not in the union. */
export function eventOf(
  event: SupervisorEvent,
  runId: string,
  pathOf: (nodeId: string) => string | undefined,
  now: Date = new Date(),
): ArborEvent | undefined {
  const ts = now.toISOString();
  switch (event.type) {
    case 'node':
      return {
        type: 'node.status',
        ts,
        runId,
        nodeId: event.node.id,
        path: event.node.path,
        status: event.node.status,
      };
    case 'usage':
      return fromWireEvent({
        ts,
        run_id: runId,
        node_id: event.nodeId,
        path: pathOf(event.nodeId),
        event: 'usage',
        ...event.usage,
      });
    case 'turn':
      return {
        type: 'turn.outcome',
        ts,
        runId,
        nodeId: event.nodeId,
        ...withPath(pathOf(event.nodeId)),
        status: event.outcome.status,
      };
    case 'event': {
      const type = API_NAMES.get(event.kind) ?? event.kind;
      if (!KNOWN.has(type)) return undefined;
      return fromWireEvent({
        ts,
        run_id: runId,
        node_id: event.nodeId,
        path: pathOf(event.nodeId),
        event: event.kind,
        ...event.fields,
      });
    }
  }
}

function withPath(path: string | undefined): { path?: string } {
  return path === undefined ? {} : { path };
}
