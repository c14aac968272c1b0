import { z } from 'zod';
import { HeadersSchema, PositiveIntSchema } from './primitives.js';
import { HttpUrlSchema } from './intelligence.js';

/**
 * Trifecta tags on an MCP server. A child holding all three (reads untrusted input, touches
 * sensitive data, can send data out) is refused unless the operator allows it.
 */
export const TrifectaTagSchema = z.enum(['untrusted_input', 'sensitive', 'egress']);
export type TrifectaTag = z.infer<typeof TrifectaTagSchema>;

/** A name usable as a tool-name prefix: letters, digits, `_` and `-`. */
export const ServerNameSchema = z
  .string()
  .regex(/^[A-Za-z0-9_-]{1,64}$/, 'expected 1-64 letters, digits, `_` or `-`');

/**
 * An MCP server a child may connect to: either a stdio server (`command`, `args`, `env`, `cwd`)
 * or a Streamable HTTP server (`url`, `headers`). Exactly one of `command` and `url` is set.
 */
export const McpServerSpecSchema = z
  .object({
    name: ServerNameSchema,
    command: z.string().min(1).optional(),
    args: z.array(z.string()).default([]),
    /** Environment for a stdio server. Values are redacted when shown: they often hold tokens. */
    env: z.record(z.string(), z.string()).default({}),
    cwd: z.string().min(1).optional(),
    url: HttpUrlSchema.optional(),
    /** Headers for an HTTP server; values may be `{{secret:NAME}}` templates. */
    headers: HeadersSchema.default({}),
    tags: z.array(TrifectaTagSchema).default([]),
    /** A required server that cannot be reached ends the run (exit 6); an optional one is skipped. */
    required: z.boolean().default(true),
    /** How long to wait for the server to connect and list its tools, in milliseconds. */
    connect_timeout_ms: PositiveIntSchema.default(60_000),
  })
  .superRefine((spec, ctx) => {
    const hasCommand = spec.command !== undefined;
    const hasUrl = spec.url !== undefined;
    if (hasCommand === hasUrl) {
      ctx.addIssue({
        code: 'custom',
        message: hasCommand
          ? 'expected exactly one of `command` (stdio) or `url` (HTTP), got both'
          : 'expected exactly one of `command` (stdio) or `url` (HTTP), got neither',
      });
    }
  });
export type McpServerSpec = z.infer<typeof McpServerSpecSchema>;

/** A remote A2A agent this child may delegate to. */
export const A2aPeerSpecSchema = z.object({
  name: ServerNameSchema,
  url: HttpUrlSchema,
  headers: HeadersSchema.default({}),
  /** PEM paths for mutual TLS (public paths, never key bytes). */
  client_cert: z.string().min(1).optional(),
  client_key: z.string().min(1).optional(),
});
export type A2aPeerSpec = z.infer<typeof A2aPeerSpecSchema>;

/**
 * Agent identity shared by the whole tree, so a peer sees one agent, not a crowd. The key file is
 * a path on a shared filesystem; the enrollment token is a secret reference resolved in the child.
 */
export const AAuthSettingsSchema = z.object({
  /** URL of the agent provider that issues agent tokens. */
  provider: HttpUrlSchema,
  key_file: z.string().min(1),
  /** A `{{secret:NAME}}` reference, never a literal token. */
  enrollment_token: z.string().min(1).optional(),
  enroll_assertion_file: z.string().min(1).optional(),
  person_server: HttpUrlSchema.optional(),
});
export type AAuthSettings = z.infer<typeof AAuthSettingsSchema>;
