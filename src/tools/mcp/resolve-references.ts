import { readFile } from 'node:fs/promises';
import { ArborError } from '../../protocol/index.js';

/** Where `{{env:NAME}}` references are read from. */
export type EnvSource = Readonly<Record<string, string | undefined>>;

export interface ReferenceSources {
  env: EnvSource;
  /** The value of `{{secret:NAME}}`; `undefined` when there is no such secret. */
  resolveSecret?: ((name: string) => string | undefined) | undefined;
  signal?: AbortSignal | undefined;
}

/** One resolved map: the values to use, and which of them are secret (for scrubbing). */
export interface ResolvedMap {
  values: Record<string, string>;
  secrets: string[];
}

/** `{{secret:NAME}}`, `{{secret-file:PATH}}` and `{{env:NAME}}`, as `redactSecretMap` knows them. */
const REFERENCE = /\{\{(secret|secret-file|env):([^}]+)\}\}/g;

/** Header and variable names whose literal values are credentials. */
const SECRET_NAME = /auth|token|secret|passw|key|cookie|session|credential|signature/i;

async function resolveOne(
  kind: string,
  name: string,
  sources: ReferenceSources,
): Promise<string | undefined> {
  switch (kind) {
    case 'env':
      return sources.env[name];
    case 'secret':
      return sources.resolveSecret?.(name);
    default: {
      // A secret file holds one value; its trailing newline is an artefact of the editor.
      try {
        const text = await readFile(name, { encoding: 'utf8', signal: sources.signal });
        return text.replace(/\r?\n$/, '');
      } catch (error) {
        if (sources.signal?.aborted === true) throw error;
        return undefined;
      }
    }
  }
}

/**
 * Resolves the references in each value of a header or environment map. `what` names the map's
 * entries in messages (`header`, `variable`). A reference that does not resolve is a `config`
 * error naming the entry and the reference, never a value.
 */
export async function resolveReferences(
  map: Readonly<Record<string, string>>,
  what: string,
  sources: ReferenceSources,
): Promise<ResolvedMap> {
  const values: Record<string, string> = {};
  const secrets: string[] = [];
  for (const [key, template] of Object.entries(map)) {
    let out = '';
    let last = 0;
    let hasReference = false;
    for (const match of template.matchAll(REFERENCE)) {
      const [whole, kind = '', name = ''] = match;
      const value = await resolveOne(kind, name.trim(), sources);
      if (value === undefined) {
        throw new ArborError(
          'config',
          `${what} \`${key}\` refers to \`{{${kind}:${name}}}\`, which is not available${
            kind === 'secret' && sources.resolveSecret === undefined
              ? ' (no secret store is configured)'
              : ''
          }.`,
          { details: { entry: key, reference: `${kind}:${name}` } },
        );
      }
      out += template.slice(last, match.index) + value;
      last = match.index + whole.length;
      hasReference = true;
      secrets.push(value);
    }
    const resolved = out + template.slice(last);
    values[key] = resolved;
    // A literal credential is allowed (a local server's fixed token), but it is still a secret.
    if (!hasReference && (what === 'header' || SECRET_NAME.test(key))) secrets.push(resolved);
  }
  return { values, secrets };
}
