import { CHILD_BOUNDS, type AgentFrame, type ViolationCode } from '../../protocol/index.js';
import { EGRESS_APPROVAL } from '../../tools/index.js';

/** Tool requests that put a question to a person: each holds a gate open until it is answered. */
const GATE_TOOLS: ReadonlySet<string> = new Set(['ask_human', EGRESS_APPROVAL]);

/** Why a frame may not be acted on. */
export interface OverBound {
  code: ViolationCode;
  reason: string;
}

/**
 * What one child holds open (requests not yet answered, gates not yet closed), checked against
 * `CHILD_BOUNDS` as each frame arrives. `admit` counts a frame it lets through; `settle` releases
 * a request once it has been answered.
 */
export class ChildBounds {
  /** Pending tool requests by id, and whether each holds a gate open. */
  readonly #tools = new Map<number, boolean>();
  readonly #budget = new Set<number>();
  #gateFrames = 0;
  #gateTools = 0;

  /** Undefined when `frame` may be acted on (it is then counted); otherwise why not. */
  admit(frame: AgentFrame): OverBound | undefined {
    switch (frame.type) {
      case 'tool_request':
        return this.#admitTool(frame.id, frame.name);
      case 'budget_request': {
        if (this.#budget.has(frame.id)) return duplicate('budget_request', frame.id);
        const limit = CHILD_BOUNDS.pendingBudgetRequests;
        if (this.#budget.size >= limit)
          return over(`more than ${limit} budget requests pending (request ${frame.id})`);
        this.#budget.add(frame.id);
        return undefined;
      }
      case 'gate': {
        const size = jsonChars(frame.payload);
        if (size > CHILD_BOUNDS.fieldsChars)
          return over(`gate payload of ${size} characters (at most ${CHILD_BOUNDS.fieldsChars})`);
        if (this.#openGates() >= CHILD_BOUNDS.openGates) return tooManyGates();
        this.#gateFrames += 1;
        return undefined;
      }
      case 'gate_closed':
        if (this.#gateFrames > 0) this.#gateFrames -= 1;
        return undefined;
      case 'event': {
        if (frame.event.length > CHILD_BOUNDS.eventNameChars)
          return over(
            `event name of ${frame.event.length} characters (at most ${CHILD_BOUNDS.eventNameChars})`,
          );
        const size = jsonChars(frame.fields);
        if (size > CHILD_BOUNDS.fieldsChars)
          return over(
            `\`${frame.event}\` fields of ${size} characters (at most ${CHILD_BOUNDS.fieldsChars})`,
          );
        return undefined;
      }
      case 'ready':
      case 'pong':
      case 'usage':
      case 'turn':
      case 'result':
      case 'failed':
      case 'intel_health':
      case 'intel_limits':
      case 'turn_done':
        return undefined;
    }
  }

  /** A request has been answered: it no longer counts against the child. */
  settle(kind: 'tool' | 'budget', id: number): void {
    if (kind === 'budget') {
      this.#budget.delete(id);
      return;
    }
    const isGate = this.#tools.get(id);
    if (isGate === true) this.#gateTools -= 1;
    this.#tools.delete(id);
  }

  #admitTool(id: number, name: string): OverBound | undefined {
    if (this.#tools.has(id)) return duplicate('tool_request', id);
    const limit = CHILD_BOUNDS.pendingToolRequests;
    if (this.#tools.size >= limit)
      return over(`more than ${limit} tool requests pending (request ${id}, \`${name}\`)`);
    const isGate = GATE_TOOLS.has(name);
    if (isGate) {
      if (this.#openGates() >= CHILD_BOUNDS.openGates) return tooManyGates();
      this.#gateTools += 1;
    }
    this.#tools.set(id, isGate);
    return undefined;
  }

  #openGates(): number {
    return this.#gateFrames + this.#gateTools;
  }
}

function over(reason: string): OverBound {
  return { code: 'over_bound', reason };
}

function tooManyGates(): OverBound {
  return over(`more than ${CHILD_BOUNDS.openGates} questions to a person open at once`);
}

function duplicate(type: string, id: number): OverBound {
  return { code: 'invalid_frame', reason: `${type}: id ${id} is already pending` };
}

/** The length of a value as JSON text. */
function jsonChars(value: unknown): number {
  return JSON.stringify(value ?? null).length;
}
