import {
  RUN_EVENT_TYPES,
  type EventBase,
  type RunEvent,
  type RunEventFields,
  type RunEventOf,
  type RunEventType,
} from '../protocol/index.js';

/**
 * The library's names for run events. The one definition is the schema in
 * `src/protocol/run-events.ts`; these are derived from it, so the union stays closed and a
 * consumer's `switch` on `type` is checked by the compiler.
 */

export type ArborEventType = RunEventType;

/** Every event by name, with its fields as the API gives them (camelCase). */
export type EventFields = { [K in ArborEventType]: RunEventFields<K> };

export type { EventBase };

/** One event of a run: its `type` says which, and which fields it has. */
export type ArborEvent = RunEvent;

/** The event of type `K`. */
export type ArborEventOf<K extends ArborEventType> = RunEventOf<K>;

/** Every event type, for validation and documentation. */
export const EVENT_TYPES: readonly ArborEventType[] = RUN_EVENT_TYPES;
