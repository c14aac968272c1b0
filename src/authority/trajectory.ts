import type { RuntimeTrifecta, Taint, TrajectoryEvent } from '../protocol/index.js';

/** What a node did that moves its trajectory. */
export type TrajectorySignal =
  /** Untrusted content reached it (`source`: a URL, `mcp:<server>`, …). */
  | { kind: 'exposed'; source: string }
  /** It read a sensitive source (a file, `mcp:<server>`). */
  | { kind: 'sensitive'; source: string }
  /** Content it received was flagged as a likely injection. */
  | { kind: 'flagged' }
  /** A call of its was refused or denied (caveat, policy, a human's no). */
  | { kind: 'refused' }
  /** A call of its failed. */
  | { kind: 'failed' }
  /** A call of its succeeded: the run of failures is broken. */
  | { kind: 'succeeded' };

/**
 * How much each signal raises the risk score. A signal moves the score `w` of the way from where
 * it is to 1 (`r ← r + (1 − r)·w`), so the score stays within 0–1 and each further signal counts
 * for less: one flagged result gives 0.3, two 0.51, three 0.66, five 0.83. The detector has false
 * positives (docs/security.md has its measured rates), so one flag alone never reaches the default
 * `risk_ask_at` of 0.8.
 */
const RISK_WEIGHTS = {
  flagged: 0.3,
  refused: 0.2,
  failed: 0.05,
  /** On top of `failed`, from the third failure in a row. */
  failedRepeatedly: 0.15,
} as const;

/** The score is multiplied by this at every model step: old signals fade. */
export const RISK_DECAY_PER_STEP = 0.9;

/** A child starts from its parent's score times this: a spawn is not a free reset. */
export const CHILD_RISK_DAMPING = 0.5;

/** Failures in a row from which `failedRepeatedly` is added. */
const REPEATED_FAILURES = 3;

/**
 * A node's trajectory: what it has actually done, as the runtime trifecta and the risk score see
 * it. It becomes *exposed* when untrusted content reaches it and *sensitive* once it reads a
 * sensitive source; neither ever goes back. The risk score (0–1) rises with flagged content,
 * refusals and failures, decays per step, and starts from the parent's damped score.
 */
export class Trajectory {
  #exposedBy: string | undefined;
  #sensitiveBy: string | undefined;
  #risk: number;
  #failures = 0;

  constructor(seed: { risk?: number | undefined; taint?: Taint | undefined } = {}) {
    this.#risk = clamp(seed.risk ?? 0);
    if (seed.taint?.exposed === true) this.#exposedBy = 'inherited from the parent agent';
    if (seed.taint?.sensitive === true) this.#sensitiveBy = 'inherited from the parent agent';
  }

  get exposed(): boolean {
    return this.#exposedBy !== undefined;
  }

  get sensitive(): boolean {
    return this.#sensitiveBy !== undefined;
  }

  get risk(): number {
    return this.#risk;
  }

  /** Folds a signal in; true when what the supervisor is told would change. */
  observe(signal: TrajectorySignal): boolean {
    const before = this.snapshot();
    switch (signal.kind) {
      case 'exposed':
        this.#exposedBy ??= signal.source;
        break;
      case 'sensitive':
        this.#sensitiveBy ??= signal.source;
        break;
      case 'flagged':
        this.#raise(RISK_WEIGHTS.flagged);
        break;
      case 'refused':
        this.#failures = 0;
        this.#raise(RISK_WEIGHTS.refused);
        break;
      case 'failed':
        this.#failures += 1;
        this.#raise(RISK_WEIGHTS.failed);
        if (this.#failures >= REPEATED_FAILURES) this.#raise(RISK_WEIGHTS.failedRepeatedly);
        break;
      case 'succeeded':
        this.#failures = 0;
        break;
    }
    return !sameSnapshot(before, this.snapshot());
  }

  /** One model step has passed: the score decays. True when the reported score changes. */
  step(): boolean {
    const before = round(this.#risk);
    this.#risk = clamp(this.#risk * RISK_DECAY_PER_STEP);
    return round(this.#risk) !== before;
  }

  snapshot(): TrajectoryEvent {
    return {
      exposed: this.exposed,
      sensitive: this.sensitive,
      risk: round(this.#risk),
      ...(this.#exposedBy === undefined ? {} : { exposed_by: this.#exposedBy }),
      ...(this.#sensitiveBy === undefined ? {} : { sensitive_by: this.#sensitiveBy }),
    };
  }

  #raise(weight: number): void {
    this.#risk = clamp(this.#risk + (1 - this.#risk) * weight);
  }
}

/** What a child of a node in state `parent` starts from. */
export function childSeed(parent: TrajectoryEvent): { risk_seed: number; inherited_taint: Taint } {
  return {
    risk_seed: round(parent.risk * CHILD_RISK_DAMPING),
    inherited_taint: { exposed: parent.exposed, sensitive: parent.sensitive },
  };
}

/**
 * The runtime trifecta: may a node in `state` make an egress call now? `undefined` when it may;
 * otherwise why it must be held (for a human's yes under `ask`, refused under `deny`). Held when
 * the node is both exposed and sensitive (one injection away from exfiltration), or when its risk
 * score has reached `risk_ask_at`. A node that read untrusted content but holds nothing sensitive
 * goes on, as does one that holds sensitive data but read nothing untrusted.
 */
export function egressHold(state: TrajectoryEvent, settings: RuntimeTrifecta): string | undefined {
  if (settings.mode === 'off') return undefined;
  if (state.exposed && state.sensitive) {
    return (
      `this agent has read untrusted content (${state.exposed_by ?? 'unknown source'}) and ` +
      `sensitive data (${state.sensitive_by ?? 'unknown source'}), so sending anything out needs a person's approval`
    );
  }
  if (state.risk >= settings.risk_ask_at) {
    return `this agent's risk score ${state.risk} is at or above ${settings.risk_ask_at}, so sending anything out needs a person's approval`;
  }
  return undefined;
}

function clamp(value: number): number {
  return Number.isFinite(value) ? Math.min(1, Math.max(0, value)) : 0;
}

function round(value: number): number {
  return Math.round(value * 1000) / 1000;
}

function sameSnapshot(a: TrajectoryEvent, b: TrajectoryEvent): boolean {
  return a.exposed === b.exposed && a.sensitive === b.sensitive && a.risk === b.risk;
}
