import {
  egressHold,
  isEgressCall,
  type ToolProfile,
  type Trajectory,
  type TrajectorySignal,
} from '../authority/index.js';
import type { SensitiveMatcher } from '../authority/sensitive-paths.js';
import {
  looksSecret,
  type ChildEvent,
  type ContentIsolation,
  type JsonObject,
  type RuntimeTrifecta,
  type ToolCall,
  type ToolDef,
} from '../protocol/index.js';
import { detectInjection, limitBytes, wrapUntrusted } from './content/index.js';
import { toolRefusal, type ToolCallContext, type ToolHost, type ToolOutput } from './tool.js';

export interface EgressApproval {
  approved: boolean;
  /** Why not, in words for the model: "the answer was no", "nobody could be asked". */
  reason: string;
}

export interface GuardedToolsOptions {
  host: ToolHost;
  profile(name: string): ToolProfile;
  trajectory: Trajectory;
  trifecta: RuntimeTrifecta;
  isolation: ContentIsolation & { marker: string };
  sensitive: SensitiveMatcher;
  /** Asks a person (through the supervisor) whether an egress call the trifecta holds may go. */
  approve(
    request: { tool: string; args: JsonObject; reason: string },
    signal: AbortSignal,
  ): Promise<EgressApproval>;
  /** `trajectory`, `content.flagged`, `trifecta.held`, `trifecta.answer`. */
  onEvent(event: ChildEvent): void;
}

/**
 * The tools as a node uses them, guarded by what the node has actually done. Before an egress
 * call (`http.fetch`, `exec` with network, an MCP tool tagged `egress`), the runtime trifecta is
 * judged: a node that is both exposed and sensitive, or whose risk score is at `risk_ask_at`, is
 * held for a person's yes (or refused, under `deny`). After every call the trajectory is updated:
 * an untrusted result exposes the node, is scanned by the injection detector (a hit is reported as
 * `content.flagged` and raises the risk score) and reaches the model inside the run's boundary with
 * its provenance; reading a sensitive file (or a command naming one, or printing a credential) or
 * a `sensitive` server's result makes the node sensitive; refusals and failures raise the risk.
 */
export class GuardedTools implements ToolHost {
  readonly #options: GuardedToolsOptions;

  constructor(options: GuardedToolsOptions) {
    this.#options = options;
  }

  definitions(): readonly ToolDef[] {
    return this.#options.host.definitions();
  }

  refresh(options: { signal: AbortSignal }): Promise<void> {
    return this.#options.host.refresh?.(options) ?? Promise.resolve();
  }

  /** A model step has passed: the risk score decays. */
  step(): void {
    if (this.#options.trajectory.step()) this.#report();
  }

  async call(call: ToolCall, context: ToolCallContext): Promise<ToolOutput> {
    const profile = this.#options.profile(call.name);
    if (isEgressCall(profile, call)) {
      const refusal = await this.#judgeEgress(call, context.signal);
      if (refusal !== undefined) return refusal;
    }
    const output = await this.#options.host.call(call, context);
    // Only arbor's code marks a refusal: a tool's own error text is never taken for one.
    const refused = output.refused === true;
    const signals = await this.#signals(call, profile, output, refused);
    // A sub-agent that read untrusted content may pass it up in its answer: fenced like any.
    const carried = output.taint?.exposed === true;
    const shown =
      (profile.untrusted || carried) && !refused
        ? this.#isolate(
            call,
            carried
              ? { ...profile, source: `${call.name} (a sub-agent that read untrusted content)` }
              : profile,
            output,
          )
        : { output, flagged: false };
    if (shown.flagged) signals.push({ kind: 'flagged' });
    let changed = false;
    for (const signal of signals) changed = this.#options.trajectory.observe(signal) || changed;
    if (changed) this.#report();
    return shown.output;
  }

  async #judgeEgress(call: ToolCall, signal: AbortSignal): Promise<ToolOutput | undefined> {
    const { trajectory, trifecta } = this.#options;
    const hold = egressHold(trajectory.snapshot(), trifecta);
    if (hold === undefined) return undefined;
    this.#options.onEvent({
      type: 'trifecta.held',
      tool: call.name,
      mode: trifecta.mode,
      reason: hold,
    });
    let why: string;
    if (trifecta.mode === 'deny') {
      why = `${hold}; runtime_trifecta is "deny"`;
    } else {
      const answer = await this.#options.approve(
        { tool: call.name, args: call.args, reason: hold },
        signal,
      );
      this.#options.onEvent({
        type: 'trifecta.answer',
        tool: call.name,
        approved: answer.approved,
      });
      if (answer.approved) return undefined;
      why = `${hold}, and ${answer.reason}`;
    }
    if (trajectory.observe({ kind: 'refused' })) this.#report();
    return toolRefusal(`\`${call.name}\` refused: ${why}.`);
  }

  async #signals(
    call: ToolCall,
    profile: ToolProfile,
    output: ToolOutput,
    refused: boolean,
  ): Promise<TrajectorySignal[]> {
    if (refused) return [{ kind: 'refused' }];
    const signals: TrajectorySignal[] = [{ kind: output.isError ? 'failed' : 'succeeded' }];
    if (profile.untrusted || profile.exposes === true)
      signals.push({ kind: 'exposed', source: output.source ?? profile.source });
    if (output.taint?.exposed === true)
      signals.push({ kind: 'exposed', source: `${call.name}: a sub-agent's answer` });
    if (output.taint?.sensitive === true)
      signals.push({ kind: 'sensitive', source: `${call.name}: a sub-agent's answer` });
    const sensitive = await this.#sensitiveSource(call, profile, output);
    if (sensitive !== undefined) signals.push({ kind: 'sensitive', source: sensitive });
    return signals;
  }

  /** What sensitive data this call brought the node, if any. */
  async #sensitiveSource(
    call: ToolCall,
    profile: ToolProfile,
    output: ToolOutput,
  ): Promise<string | undefined> {
    const { sensitive } = this.#options;
    if (profile.sensitive && !output.isError) return profile.source;
    // The files the tool says it read, by real path (a link or `.env/.` still names `.env`).
    if (call.name === 'fs.read' && !output.isError) {
      const read = output.read ?? (typeof call.args.path === 'string' ? [call.args.path] : []);
      const named = typeof call.args.path === 'string' ? call.args.path : undefined;
      for (const file of read) if (await sensitive.matches(file)) return `fs.read ${named ?? file}`;
    }
    const command = call.args.command;
    if (call.name === 'exec' && typeof command === 'string') {
      const named = await sensitive.namedIn(command);
      if (named.length > 0) return `exec reading ${named.join(', ')}`;
      if (looksSecret(textOf(output.content)))
        return `exec output holding a credential (${command})`;
    }
    return undefined;
  }

  #isolate(
    call: ToolCall,
    profile: ToolProfile,
    output: ToolOutput,
  ): { output: ToolOutput; flagged: boolean } {
    const { isolation } = this.#options;
    if (!isolation.enabled) return { output, flagged: false };
    const text = textOf(output.content);
    const source = output.source ?? profile.source;
    const rules = detectInjection(text);
    if (rules.length > 0)
      this.#options.onEvent({ type: 'content.flagged', tool: call.name, source, rules });
    const content = isolation.spotlight
      ? wrapUntrusted(text, {
          marker: isolation.marker,
          provenance: source,
          flagged: rules,
          maxBytes: isolation.max_content_bytes,
        })
      : limitBytes(text, isolation.max_content_bytes);
    return { output: { ...output, content }, flagged: rules.length > 0 };
  }

  #report(): void {
    const { exposed, sensitive, risk, exposed_by, sensitive_by } =
      this.#options.trajectory.snapshot();
    this.#options.onEvent({
      type: 'trajectory',
      exposed,
      sensitive,
      risk,
      ...(exposed_by === undefined ? {} : { exposedBy: exposed_by }),
      ...(sensitive_by === undefined ? {} : { sensitiveBy: sensitive_by }),
    });
  }
}

function textOf(content: unknown): string {
  if (typeof content === 'string') return content;
  return content === undefined ? 'null' : JSON.stringify(content);
}
