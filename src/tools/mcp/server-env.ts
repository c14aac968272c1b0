import type { EnvSource } from './resolve-references.js';

/**
 * Variables a stdio server inherits from arbor's environment: where things are and how to speak,
 * never a credential. The MCP SDK adds its own short list (`HOME`, `LOGNAME`, `PATH`, `SHELL`,
 * `TERM`, `USER`); these are the ones it leaves out that servers commonly need. Proxy variables
 * are left out on purpose: they often carry a password in their URL.
 */
const INHERITED = [
  'HOME',
  'LOGNAME',
  'PATH',
  'SHELL',
  'TERM',
  'USER',
  'LANG',
  'LANGUAGE',
  'LC_ALL',
  'LC_CTYPE',
  'TZ',
  'TMPDIR',
  'NODE_EXTRA_CA_CERTS',
  'SSL_CERT_FILE',
  'SSL_CERT_DIR',
] as const;

/**
 * The environment of a stdio server: the inherited safe variables from `env`, then the server's
 * own `env` (references already resolved), which wins. Nothing else of arbor's environment
 * reaches the server, so an API key in arbor's environment stays there.
 */
export function serverEnv(
  env: EnvSource,
  own: Readonly<Record<string, string>>,
): Record<string, string> {
  const out: Record<string, string> = {};
  for (const name of INHERITED) {
    const value = env[name];
    // A value starting with `()` is an exported shell function: code, not configuration.
    if (value !== undefined && !value.startsWith('()')) out[name] = value;
  }
  return { ...out, ...own };
}
