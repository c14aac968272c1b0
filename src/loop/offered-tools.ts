import { createHash } from 'node:crypto';
import type { ModelResponse } from '../intel/model.js';
import type { RunEventFields, ToolDef } from '../protocol/index.js';
import type { SessionOptions } from './session-types.js';

/** Hex characters of a tools set's SHA-256 kept as its digest: 64 bits, ample within one run. */
const DIGEST_CHARS = 16;

/**
 * The tools a session's calls offered, as a replay needs them. Each call names its set by a digest;
 * the set itself is reported (`model.tools`) once per session and again only when it changes, so
 * a ten-step node pays for its schemas once. The digest is kept while the definitions stay the
 * same objects, so an unchanged set is not serialised again on every call.
 */
class OfferedTools {
  #last: readonly ToolDef[] = [];
  #digest: string | undefined;
  readonly #reported = new Set<string>();

  /** The digest of `tools`, and whether this session has not reported that set yet. */
  offer(tools: readonly ToolDef[]): { digest: string; isNew: boolean } {
    if (this.#digest === undefined || !sameObjects(tools, this.#last)) {
      this.#digest = toolsDigest(tools);
      this.#last = [...tools];
    }
    const isNew = !this.#reported.has(this.#digest);
    this.#reported.add(this.#digest);
    return { digest: this.#digest, isNew };
  }
}

/** One recorder per session: its options object lives as long as the session and its turns. */
const SESSIONS = new WeakMap<SessionOptions, OfferedTools>();

/**
 * Records that the session's next call offers `tools`: reports the set (`model.tools`) when the
 * session has not reported it yet, and returns its digest for the call's `model.call` event.
 */
export function recordOffer(options: SessionOptions, tools: readonly ToolDef[]): string {
  let offered = SESSIONS.get(options);
  if (offered === undefined) SESSIONS.set(options, (offered = new OfferedTools()));
  const { digest, isNew } = offered.offer(tools);
  if (isNew) options.hooks?.onEvent?.({ type: 'model.tools', digest, tools: [...tools] });
  return digest;
}

/** The system prompts each session has reported, by digest (a session's prompt rarely changes). */
const SYSTEMS = new WeakMap<
  SessionOptions,
  { text: string; digest: string; reported: Set<string> }
>();

/**
 * Records that the session's next call sends `system`: reports it (`model.system`) when the session
 * has not reported that prompt yet, and returns its digest for the call's `model.call` event.
 */
export function recordSystem(options: SessionOptions, system: string): string {
  let seen = SYSTEMS.get(options);
  if (seen?.text !== system) {
    const reported = seen?.reported ?? new Set<string>();
    seen = { text: system, digest: textDigest(system), reported };
    SYSTEMS.set(options, seen);
  }
  if (!seen.reported.has(seen.digest)) {
    seen.reported.add(seen.digest);
    options.hooks?.onEvent?.({ type: 'model.system', digest: seen.digest, text: system });
  }
  return seen.digest;
}

/** The digest of a system prompt, as `model.system` and `model.call` name it. */
export function textDigest(text: string): string {
  return createHash('sha256').update(text).digest('hex').slice(0, DIGEST_CHARS);
}

/**
 * The fields of a `model.call` event that say what was asked: the tools offered (by digest), the
 * sampling sent (when any was set) and the model named (when the answer reported another).
 */
export function askedFields(
  response: ModelResponse,
  digest: string,
  systemDigest: string,
): Pick<
  RunEventFields<'model.call'>,
  'toolsDigest' | 'sampling' | 'modelAsked' | 'systemDigest' | 'replayed'
> {
  const { sampling, modelAsked } = response;
  return {
    toolsDigest: digest,
    systemDigest,
    ...(response.replayed === true ? { replayed: true } : {}),
    ...(sampling === undefined || Object.keys(sampling).length === 0 ? {} : { sampling }),
    ...(modelAsked === undefined || modelAsked === response.model ? {} : { modelAsked }),
  };
}

/** The digest of a tools set: SHA-256 of its JSON, in offer order (the order is sent too). */
export function toolsDigest(tools: readonly ToolDef[]): string {
  return createHash('sha256').update(JSON.stringify(tools)).digest('hex').slice(0, DIGEST_CHARS);
}

function sameObjects(a: readonly ToolDef[], b: readonly ToolDef[]): boolean {
  return a.length === b.length && a.every((tool, index) => tool === b[index]);
}
