import { z } from 'zod';
import {
  DialectSchema,
  EndpointSchema,
  HttpUrlSchema,
  redactUrl,
  type Endpoint,
  type IntelConfig,
} from '../protocol/index.js';

/**
 * The intelligence a run was started with, as far as it is not secret: the endpoint URLs, their
 * dialects, the model names and where each credential comes from (`env:NAME`). It is kept in the
 * run's `meta.intelligence` so `arbor resume RUN` can use it when no flag, environment variable
 * or config file names a model or an endpoint; keys still come from the environment. Headers are
 * not kept: their values may be secrets.
 */
const RecordedIntelSchema = z.object({
  model: z.string().min(1),
  endpoints: z
    .array(
      z.object({
        url: HttpUrlSchema,
        dialect: DialectSchema,
        model: z.string().min(1).optional(),
        credential_ref: z.string().min(1).optional(),
        sampling: EndpointSchema.shape.sampling,
        max_tokens_field: EndpointSchema.shape.max_tokens_field,
        prompt_cache: EndpointSchema.shape.prompt_cache,
      }),
    )
    .min(1),
});
export type RecordedIntel = z.infer<typeof RecordedIntelSchema>;

/**
 * What of `intel` a run records, or `undefined` when an endpoint URL carries something secret (a
 * key in its query): such a run is resumed with the endpoints given again.
 */
function recordIntel(intel: IntelConfig | undefined): RecordedIntel | undefined {
  if (intel === undefined) return undefined;
  if (intel.endpoints.some((endpoint) => redactUrl(endpoint.url) !== endpoint.url))
    return undefined;
  return {
    model: intel.model,
    endpoints: intel.endpoints.map((endpoint) => ({
      url: endpoint.url,
      dialect: endpoint.dialect,
      ...(endpoint.model === undefined ? {} : { model: endpoint.model }),
      ...(endpoint.credential_ref === undefined ? {} : { credential_ref: endpoint.credential_ref }),
      ...(endpoint.sampling === undefined ? {} : { sampling: endpoint.sampling }),
      ...(endpoint.max_tokens_field === undefined
        ? {}
        : { max_tokens_field: endpoint.max_tokens_field }),
      ...(endpoint.prompt_cache === undefined ? {} : { prompt_cache: endpoint.prompt_cache }),
    })),
  };
}

/**
 * What a run's `meta` says of its intelligence: the model it runs with, and (for `resume` and
 * `plan resume` when they are given no model or endpoint) the credential-free record of what
 * `settings` named — never a mock's passing port, which `settings` does not hold.
 */
export function intelMeta(
  given: IntelConfig | undefined,
  running: IntelConfig,
): { model: string; intelligence?: RecordedIntel } {
  const recorded = recordIntel(given);
  return { model: running.model, ...(recorded === undefined ? {} : { intelligence: recorded }) };
}

/** The intelligence a run's `meta` recorded, or `undefined` (a run from before it was kept). */
export function recordedIntelOf(meta: Record<string, unknown>): RecordedIntel | undefined {
  const parsed = RecordedIntelSchema.safeParse(meta.intelligence);
  return parsed.success ? parsed.data : undefined;
}

/** The recorded endpoints as endpoints to call, each with `dialect` when one is given now. */
export function recordedEndpoints(
  recorded: RecordedIntel,
  dialect?: Endpoint['dialect'],
): Endpoint[] {
  return recorded.endpoints.map((endpoint) => ({
    ...endpoint,
    ...(dialect === undefined ? {} : { dialect }),
    headers: {},
  }));
}
