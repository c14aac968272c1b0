import { createPrivateKey, X509Certificate, type KeyObject } from 'node:crypto';
import { readFileSync } from 'node:fs';
import path from 'node:path';
import { loadConfigFile, parseDuration, resolveRunSettings } from '../config/index.js';
import { ArborError } from '../protocol/index.js';
import { EXIT } from '../runtime/index.js';
import { startServer } from '../serve/index.js';
import { checkTokenPlace, serveTokenFile } from '../serve/token-file.js';
import { write, type CliIo } from './output.js';
import { RUN_OPTIONS } from './run-options.js';
import { withIntelligence } from './run-setup.js';
import { parseCommandArgs, usageError } from './usage-error.js';
import { VERSION } from './version.js';

const { warm: _warm, json: _json, events: _events, resume: _resume, ...SHARED } = RUN_OPTIONS;

const SERVE_OPTIONS = {
  ...SHARED,
  listen: { type: 'string' },
  'tls-cert': { type: 'string' },
  'tls-key': { type: 'string' },
  'drain-timeout': { type: 'string' },
} as const;

export const SERVE_HELP = `Usage: arbor serve [options]

Runs arbor as a long-lived service: other agents send it tasks over A2A (protocol 1.0, JSON-RPC
with SSE streams), each task runs as a root agent and its tree, many at once on one store.

  --listen HOST:PORT       where to listen (default 127.0.0.1:7700); a non-loopback address
                           needs [[serve.principal]] entries in --config
  --tls-cert FILE          serve HTTPS with this PEM certificate (and --tls-key)
  --tls-key FILE           the certificate's PEM private key
  --drain-timeout DURATION on SIGTERM/SIGINT: how long running tasks may take to finish (default
                           30s); those still going are left to resume when the server restarts

Every request but the agent card and the probes needs a bearer token: a principal's
([[serve.principal]] in --config), or, with none configured, the operator token made at start,
printed once here and written (0600) outside every workspace, to
$ARBOR_STATE_DIR/serve-tokens/<hash of the store's path> (default state directory
$XDG_STATE_HOME/arbor, else ~/.local/state/arbor); the path is printed with it.

Endpoints: GET /.well-known/agent-card.json, POST /a2a/jsonrpc, /mcp (MCP over Streamable
HTTP, the same tokens; see docs/mcp-server.md), GET /healthz, GET /readyz,
GET /metrics (operator token, unless [serve] public_metrics = true), and the web dashboard at
GET / (sign in with a token; see docs/observability.md).

The model, limits, grant, MCP, sandbox and store options are those of \`arbor run\` (see
\`arbor run --help\`); they apply to every task's run. See docs/serve.md.
`;

/** `arbor serve`. Resolves when the server has drained after SIGTERM or SIGINT. */
export async function serveCommand(args: string[], io: CliIo): Promise<number> {
  if (args.includes('--help') || args.includes('-h')) {
    await write(io.stdout, SERVE_HELP);
    return EXIT.ok;
  }
  const { values, positionals } = parseCommandArgs('serve', args, SERVE_OPTIONS, true);
  if (positionals.length > 0)
    throw usageError(
      `\`arbor serve\` takes no instruction (tasks come over A2A); got \`${positionals.join(' ')}\`.`,
    );
  const env = io.env;
  const settings = resolveRunSettings('(each task says)', values, env);
  const config =
    settings.configPath === undefined ? undefined : loadConfigFile(settings.configPath);
  const table = config?.serve;
  const { host, port } = listenAddress(values.listen ?? '127.0.0.1:7700');
  const tls = tlsFiles(values['tls-cert'], values['tls-key']);
  const drainMs = parseDuration(values['drain-timeout'] ?? '30s', '--drain-timeout');
  const cwd = process.cwd();
  if (settings.dbPath !== ':memory:') settings.dbPath = path.resolve(cwd, settings.dbPath);
  const tokenFile = serveTokenFile(env, settings.dbPath, cwd);
  if ((table?.principal ?? []).length === 0)
    checkTokenPlace(tokenFile, { cwd, dbPath: settings.dbPath, grant: settings.grant });
  return withIntelligence(settings, env, async (intelligence, mockLabel) => {
    const server = await startServer({
      settings,
      intelligence,
      env,
      serve: table,
      host,
      port,
      ...(tls === undefined ? {} : { tls }),
      tokenFile,
      cwd,
      mcp: { table: config?.mcp?.serve, version: VERSION },
      warn: (line) => {
        void write(io.stderr, `arbor: warning: ${line}\n`);
      },
    });
    const lines = [
      `arbor: serving A2A at ${server.url} (card ${server.url}/.well-known/agent-card.json, store ${settings.dbPath})`,
      ...(mockLabel === undefined ? [] : [`arbor: ${mockLabel}`]),
      ...(server.resumed === 0
        ? []
        : [`arbor: resumed ${server.resumed} task run(s) a previous server left`]),
      ...(server.principals.generated === undefined
        ? []
        : [
            `arbor: operator token (written to ${server.principals.generated.file ?? 'nowhere'}): ${server.principals.generated.token}`,
          ]),
    ];
    await write(io.stderr, `${lines.join('\n')}\n`);
    const signal = await new Promise<string>((resolve) => {
      process.once('SIGTERM', () => {
        resolve('SIGTERM');
      });
      process.once('SIGINT', () => {
        resolve('SIGINT');
      });
    });
    await write(
      io.stderr,
      `arbor: ${signal}: draining (up to ${values['drain-timeout'] ?? '30s'})\n`,
    );
    const left = await server.drain(drainMs);
    await write(
      io.stderr,
      left.length === 0
        ? 'arbor: drained; every task had finished\n'
        : `arbor: drained; ${left.length} run(s) left to resume on restart: ${left.join(', ')}\n`,
    );
    if (left.length > 0) {
      // The runs stay recorded as running under this process; the next server finds them
      // interrupted and resumes them. Their children exit when this process is gone.
      process.exit(EXIT.ok);
    }
    return EXIT.ok;
  });
}

export function listenAddress(text: string): { host: string; port: number } {
  const match = /^(\[[^\]]+\]|[^:]+|[^\]]*:[^\]]*(?=:\d+$)):(\d{1,5})$/.exec(text.trim());
  const port = Number(match?.[2]);
  if (match?.[1] === undefined || !Number.isInteger(port) || port > 65535)
    throw usageError(`--listen: expected HOST:PORT such as 127.0.0.1:7700, got \`${text}\`.`);
  return { host: match[1].replace(/^\[|\]$/g, ''), port };
}

function tlsFiles(
  cert: string | undefined,
  key: string | undefined,
): { cert: string; key: string } | undefined {
  if (cert === undefined && key === undefined) return undefined;
  if (cert === undefined || key === undefined)
    throw usageError('--tls-cert and --tls-key go together: give both, or neither.');
  const read = (file: string, flag: string): string => {
    try {
      return readFileSync(file, 'utf8');
    } catch (error) {
      throw new ArborError(
        'config',
        `${flag}: cannot read ${file}: ${(error as NodeJS.ErrnoException).code ?? String(error)}.`,
      );
    }
  };
  const files = { cert: read(cert, '--tls-cert'), key: read(key, '--tls-key') };
  checkTls(files, { cert, key });
  return files;
}

/**
 * Checks the certificate and key before anything starts, so a wrong file is a usage error naming
 * the flag and the file, not a stack trace from deep in the TLS server. OpenSSL's reason is kept
 * (it never quotes the file's contents).
 */
function checkTls(pem: { cert: string; key: string }, file: { cert: string; key: string }): void {
  let certificate: X509Certificate;
  try {
    certificate = new X509Certificate(pem.cert);
  } catch (error) {
    throw usageError(
      `--tls-cert: ${file.cert} is not a PEM certificate (${opensslReason(error)}); expected a file that starts with -----BEGIN CERTIFICATE-----.`,
    );
  }
  let key: KeyObject;
  try {
    key = createPrivateKey(pem.key);
  } catch (error) {
    throw usageError(
      `--tls-key: ${file.key} is not an unencrypted PEM private key (${opensslReason(error)}); expected a file that starts with -----BEGIN PRIVATE KEY----- (or RSA/EC PRIVATE KEY).`,
    );
  }
  if (!certificate.checkPrivateKey(key))
    throw usageError(
      `--tls-key: the key in ${file.key} does not belong to the certificate in ${file.cert}.`,
    );
}

function opensslReason(error: unknown): string {
  const message = error instanceof Error ? error.message : String(error);
  return message.replace(/^error:[0-9A-F]+:/, '');
}
