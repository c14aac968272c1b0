import path from 'node:path';
import { loadConfigFile } from '../config/index.js';
import { EXIT } from '../runtime/index.js';
import { DEFAULT_DB_PATH } from '../store/index.js';
import { startUi } from '../serve/ui-server.js';
import { write, type CliIo } from './output.js';
import { listenAddress } from './serve-command.js';
import { parseCommandArgs, usageError } from './usage-error.js';

export const UI_HELP = `Usage: arbor ui [--db PATH] [--listen HOST:PORT] [--config FILE]

The web dashboard over a store, without serving A2A: the runs (filter and search), each run's
tree (live while it runs), its timeline, each node's grant, transcript and events, and the
questions waiting for a person, answerable from the page.

  --db PATH            the store (env ARBOR_DB, default .arbor/arbor.db)
  --listen HOST:PORT   loopback only (default 127.0.0.1:7800; port 0 picks one)
  --config FILE        for [observability] trace_url: traced runs link to your tracing backend

It prints a URL with a one-time sign-in token: open it in a browser. The token is good for one
sign-in; the page then holds a session cookie. Stop with Ctrl-C. See docs/observability.md.
`;

/** `arbor ui`: runs until SIGINT or SIGTERM. */
export async function uiCommand(args: string[], io: CliIo): Promise<number> {
  if (args.includes('--help') || args.includes('-h')) {
    await write(io.stdout, UI_HELP);
    return EXIT.ok;
  }
  const { values, positionals } = parseCommandArgs(
    'ui',
    args,
    { db: { type: 'string' }, listen: { type: 'string' }, config: { type: 'string' } },
    true,
  );
  if (positionals.length > 0)
    throw usageError(`\`arbor ui\` takes no arguments; got \`${positionals.join(' ')}\`.`);
  const { host, port } = listenAddress(values.listen ?? '127.0.0.1:7800');
  const configPath = values.config;
  const traceUrl =
    configPath === undefined ? undefined : loadConfigFile(configPath).observability?.trace_url;
  const db = values.db ?? io.env.ARBOR_DB ?? DEFAULT_DB_PATH;
  const ui = await startUi({
    db: db === ':memory:' ? db : path.resolve(db),
    host,
    port,
    ...(traceUrl === undefined ? {} : { traceUrl }),
  });
  await write(
    io.stderr,
    `arbor: dashboard for ${db} at ${ui.url}\narbor: open this URL to sign in (the token works once):\n    ${ui.signInUrl}\n`,
  );
  await new Promise<void>((resolve) => {
    process.once('SIGTERM', resolve);
    process.once('SIGINT', resolve);
  });
  await ui.close();
  return EXIT.ok;
}
