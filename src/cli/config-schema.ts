import { z } from 'zod';
import { ConfigFileSchema } from '../config/index.js';

/**
 * The config file's JSON Schema (draft 2020-12), generated from `ConfigFileSchema` so the two
 * cannot drift apart. `io: 'input'` describes what a user writes, not what the loader returns:
 * keys with defaults stay optional, and `"none"` (which a transform turns into `[]`) is allowed.
 * Refinements cannot be expressed (a `*` only at the end of a tool pattern, a budget window needs
 * `tokens` or `requests`, `endpoints` or `endpoint` but not both) and are left out: `arbor config
 * check` reports those. `unrepresentable: 'throw'` makes a zod type with no JSON Schema form fail
 * here, loudly, rather than turn into `{}`, which would accept anything.
 */
export function configJsonSchema(): z.core.JSONSchema.BaseSchema {
  return z.toJSONSchema(ConfigFileSchema, {
    target: 'draft-2020-12',
    io: 'input',
    unrepresentable: 'throw',
  });
}
