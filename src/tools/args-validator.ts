import type { Ajv, Options, ValidateFunction } from 'ajv';
import type { Ajv2020 } from 'ajv/dist/2020.js';
import type { JsonObject, ToolDef } from '../protocol/index.js';
import { formatSchemaErrors } from './format-schema-errors.js';

/** What checking one call's arguments found. */
export type ArgsCheck =
  | { ok: true }
  /** The arguments do not fit: the model's fault, and it can fix them. */
  | { ok: false; fault: 'args'; message: string }
  /** The tool's own schema cannot be compiled: the tool's fault, not the model's. */
  | { ok: false; fault: 'schema'; message: string };

type Compiled =
  { validate: ValidateFunction; schema: JsonObject; ajv: Ajv | Ajv2020 } | { error: string };

/**
 * Tolerant settings: real MCP servers publish schemas with unknown keywords, formats ajv does not
 * know and patterns written without the `u` flag in mind (`[\w-]`), and a model should still be
 * able to call their tools. `addUsedSchema: false` keeps two tools whose schemas share an `$id`
 * from colliding in the shared instance; `logger: false` keeps ajv off the console, because a
 * child's stderr is an NDJSON log.
 */
const AJV_OPTIONS: Options = {
  allErrors: true,
  strict: false,
  verbose: true,
  logger: false,
  addUsedSchema: false,
  unicodeRegExp: false,
};

const DRAFT_2020 = 'json-schema.org/draft/2020-12/schema';

interface AjvClasses {
  Ajv: typeof Ajv;
  Ajv2020: typeof Ajv2020;
}

let loading: Promise<AjvClasses> | undefined;

/**
 * ajv is loaded on the first call that needs it, not when the module is: importing it costs a
 * child about 50 ms before `ready` (measured on the bundle), and many children never call a tool.
 */
async function loadAjv(): Promise<AjvClasses> {
  loading ??= Promise.all([import('ajv'), import('ajv/dist/2020.js')]).then(
    ([draft07, draft2020]) => ({
      Ajv: draft07.Ajv,
      Ajv2020: draft2020.Ajv2020,
    }),
  );
  return loading;
}

/**
 * Checks tool arguments against each tool's `input_schema` with ajv. Each schema is compiled once,
 * on the tool's first call (so start-up pays nothing for tools never called), and kept until
 * `retain` is told the tool is gone. Schemas that declare JSON Schema 2020-12 compile with that
 * draft; every other schema compiles as draft-07, which is what most MCP servers publish.
 */
export class ArgsValidator {
  readonly #cache = new Map<object, Compiled>();
  #draft07: Ajv | undefined;
  #draft2020: Ajv2020 | undefined;

  async check(def: ToolDef, args: JsonObject): Promise<ArgsCheck> {
    const classes = await loadAjv();
    const compiled = this.#compiled(def.input_schema, classes);
    if ('error' in compiled) {
      return {
        ok: false,
        fault: 'schema',
        message:
          `Tool \`${def.name}\` cannot be called: its input schema is invalid (${compiled.error}). ` +
          `This is a fault of the tool, not of your arguments.`,
      };
    }
    if (compiled.validate(args)) return { ok: true };
    return {
      ok: false,
      fault: 'args',
      message: `Invalid arguments for \`${def.name}\`: ${formatSchemaErrors(compiled.validate.errors ?? [])}.`,
    };
  }

  /** Forgets the compiled schemas of tools no longer listed, so refreshes do not pile them up. */
  retain(defs: readonly ToolDef[]): void {
    const live = new Set<object>(defs.map((def) => def.input_schema));
    for (const [key, compiled] of this.#cache) {
      if (live.has(key)) continue;
      this.#cache.delete(key);
      // ajv keeps its own cache keyed by the schema object; drop that entry too.
      if ('schema' in compiled) compiled.ajv.removeSchema(compiled.schema);
    }
  }

  #compiled(schema: JsonObject, classes: AjvClasses): Compiled {
    const cached = this.#cache.get(schema);
    if (cached !== undefined) return cached;
    const compiled = this.#compile(schema, classes);
    this.#cache.set(schema, compiled);
    return compiled;
  }

  #compile(schema: JsonObject, classes: AjvClasses): Compiled {
    const is2020 = typeof schema.$schema === 'string' && schema.$schema.includes(DRAFT_2020);
    // `$schema` chooses the instance and is then dropped: each instance's default draft is the
    // one chosen, and ajv would otherwise refuse a schema naming a draft it has no meta-schema
    // for (draft-04, draft-06, a `#`-less spelling) instead of compiling it as draft-07.
    const { $schema: _ignored, ...own } = schema;
    const ajv = is2020
      ? (this.#draft2020 ??= new classes.Ajv2020(AJV_OPTIONS))
      : (this.#draft07 ??= new classes.Ajv(AJV_OPTIONS));
    try {
      return { validate: ajv.compile(own), schema: own, ajv };
    } catch (error) {
      // ajv caches a schema before it finds it invalid; the object is never compiled again.
      ajv.removeSchema(own);
      return { error: error instanceof Error ? error.message : String(error) };
    }
  }
}
