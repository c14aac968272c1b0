import type { TranscriptMessage } from '../../protocol/index.js';
import type { ToolAnswer } from '../internal/index.js';
import type { ToolRequest } from './node-lifecycle.js';

/** A request a node's child made of the supervisor: served here, whether or not that child runs on. */
interface Served {
  name: string;
  /** The tool and its arguments: what a woken child's repeated call is matched by. */
  key: string;
  answer: Promise<ToolAnswer>;
  settled: boolean;
}

/**
 * The requests a node's child is waiting on the supervisor for (a person's answer, a sub-agent's
 * result, an awaited turn, a gated tool). Each is served by the supervisor, never by the child, so
 * the child can go away while it waits: the node parks. What the parked child was waiting on is
 * carried; the child that wakes the node repeats its step in flight from its transcript, and each
 * repeated request is matched to a carried one (by tool and arguments) and given that answer —
 * no person asked again, no sub-agent run again.
 */
export class NodeWaits {
  /** Requests of the child now running, not yet answered. */
  readonly #inFlight = new Set<Served>();
  /** Requests of a parked child, waiting for the child that wakes the node to ask again. */
  #carried: Served[] = [];
  readonly #changed: () => void;

  constructor(changed: () => void) {
    this.#changed = changed;
  }

  /** Serves a request, or hands back a carried one's answer when it is the same request again. */
  serve(frame: ToolRequest, handler: () => Promise<ToolAnswer>): Promise<ToolAnswer> {
    const key = requestKey(frame.name, frame.args);
    const at = this.#carried.findIndex((s) => s.key === key);
    const served = at >= 0 ? this.#carried.splice(at, 1)[0] : undefined;
    const current = served ?? this.#start(frame.name, key, handler);
    if (current.settled) return current.answer;
    this.#inFlight.add(current);
    this.#changed();
    return current.answer.finally(() => {
      this.#inFlight.delete(current);
      this.#changed();
    });
  }

  /** The tools the running child is waiting on, one per request in flight. */
  get waiting(): string[] {
    return [...this.#inFlight].map((s) => s.name).sort();
  }

  /**
   * The child is going away: what it waits on is carried for the child that wakes the node.
   * Resolves when every carried request has its answer (what the node was waiting for arrived).
   */
  park(): Promise<void> {
    this.#carried = [...this.#carried, ...this.#inFlight];
    this.#inFlight.clear();
    return Promise.all(this.#carried.map((s) => s.answer.then(ignore, ignore))).then(ignore);
  }

  #start(name: string, key: string, handler: () => Promise<ToolAnswer>): Served {
    const served: Served = { name, key, answer: call(handler), settled: false };
    const settle = (): void => {
      served.settled = true;
    };
    served.answer.then(settle, settle);
    return served;
  }
}

/**
 * The tools of a node's step in flight still without a result, from its transcript: the calls of
 * its last model answer that no tool message answers yet. `undefined` when its last model answer
 * called no tool (no step is in flight).
 */
export function unansweredCalls(messages: readonly TranscriptMessage[]): string[] | undefined {
  const at = messages.findLastIndex((m) => m.role === 'assistant');
  const last = messages[at];
  if (last?.role !== 'assistant' || last.tool_calls.length === 0) return undefined;
  const answered = new Set(
    messages.slice(at + 1).flatMap((m) => (m.role === 'tool' ? [m.id] : [])),
  );
  return last.tool_calls
    .filter((c) => !answered.has(c.id))
    .map((c) => c.name)
    .sort();
}

/**
 * A woken child's repeated call carries the arguments of the recorded model answer it continues,
 * read back from the store as they were written: the same text, keys in the same order.
 */
function requestKey(name: string, args: unknown): string {
  return `${name}\u0000${JSON.stringify(args)}`;
}

async function call(handler: () => Promise<ToolAnswer>): Promise<ToolAnswer> {
  return handler();
}

function ignore(): void {
  return undefined;
}
