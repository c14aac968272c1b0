import { z } from 'zod';

/** An HTTP header name (a token, RFC 9110 §5.6.2), in lower case. */
const HEADER_NAME = /^[!#$%&'*+.^_`|~0-9a-z-]+$/;

/**
 * A credential `http.fetch` adds to a request for one host: the `header` set to `value` on every
 * request (redirect hops included) whose host, and port when one is named, is this one. Resolved
 * from `[[net.credential]]` by the process that opens the runtime; a node holds only those of the
 * hosts its `net` allows. The value is a secret: scrubbed from everything stored or shown.
 */
export const NetCredentialSchema = z.object({
  /** A host name or address in canonical form (`normalizeHost`): no wildcard, no brackets. */
  host: z.string().min(1),
  /** Only this port; absent, any port of the host. */
  port: z.number().int().min(1).max(65_535).optional(),
  header: z.string().regex(HEADER_NAME, 'expected a lower-case HTTP header name'),
  value: z.string().min(1),
});
export type NetCredential = z.infer<typeof NetCredentialSchema>;

/** The payload's `net_credentials`. */
export const NetCredentialsSchema = z.array(NetCredentialSchema);
