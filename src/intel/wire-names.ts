import { ArborError, type ToolDef } from '../protocol/index.js';

/**
 * Tool names on the wire. arbor names tools with dots (`subagent.run`); the providers accept only
 * `[A-Za-z0-9_-]`, so the dot becomes `_` on the way out and is mapped back on the way in.
 */
export function toWireToolName(name: string): string {
  return name.replaceAll('.', '_');
}

/** Maps the wire names of one request's tools back to their arbor names. */
export class ToolNames {
  readonly #byWire = new Map<string, string>();

  /** Throws a `config` error when two tools would share a wire name (`a.b` and `a_b`). */
  constructor(tools: readonly Pick<ToolDef, 'name'>[] = []) {
    for (const { name } of tools) {
      const wire = toWireToolName(name);
      const taken = this.#byWire.get(wire);
      if (taken !== undefined && taken !== name) {
        throw new ArborError(
          'config',
          `Tools \`${taken}\` and \`${name}\` both go to the model as \`${wire}\`; rename one of them.`,
          { details: { tools: [taken, name], wireName: wire } },
        );
      }
      this.#byWire.set(wire, name);
    }
  }

  /** The arbor name of a tool the model called. A name the request did not offer passes unchanged. */
  fromWire(wire: string): string {
    return this.#byWire.get(wire) ?? wire;
  }
}
