import { isArborError } from '../protocol/index.js';
import { parseConfigToml, readConfigText } from '../config/index.js';
import { findConfigProblems, formatProblem } from './config-problems.js';
import { configJsonSchema } from './config-schema.js';
import { EXIT } from '../runtime/index.js';
import { write, type CliIo } from './output.js';
import { parseCommandArgs, usageError } from './usage-error.js';

const CONFIG_HELP = `Usage: arbor config schema
       arbor config check <arbor.toml>

The config file is the TOML file of \`arbor run --config\`; see docs/running.md.

Subcommands:
  schema   print the file's JSON Schema (draft 2020-12) on stdout, for editors
  check    validate a file: print "FILE: ok" and exit 0, or print every problem to stderr,
           one per line as FILE:LINE:COLUMN: message, and exit 2
`;

/** `arbor config schema|check`. */
export async function configCommand(args: string[], io: CliIo): Promise<number> {
  const [name, ...rest] = args;
  if (name === undefined || name === '--help' || name === '-h') {
    await write(io.stdout, CONFIG_HELP);
    return name === undefined ? EXIT.usage : EXIT.ok;
  }
  if (name === 'schema') return configSchema(rest, io);
  if (name === 'check') return configCheck(rest, io);
  throw usageError(
    `Unknown subcommand \`config ${name}\`; expected \`config schema\` or \`config check\`.`,
  );
}

async function configSchema(args: string[], io: CliIo): Promise<number> {
  const { values } = parseCommandArgs('config schema', args, {
    help: { type: 'boolean', short: 'h' },
  });
  const text =
    values.help === true ? CONFIG_HELP : `${JSON.stringify(configJsonSchema(), null, 2)}\n`;
  await write(io.stdout, text);
  return EXIT.ok;
}

/**
 * Reports every problem, not the first: a syntax error alone (nothing past it can be read), else
 * every schema problem. A file that cannot be read throws a `config` error (exit 2).
 */
async function configCheck(args: string[], io: CliIo): Promise<number> {
  const { values, positionals } = parseCommandArgs(
    'config check',
    args,
    { help: { type: 'boolean', short: 'h' } },
    true,
  );
  if (values.help === true) {
    await write(io.stdout, CONFIG_HELP);
    return EXIT.ok;
  }
  const [file] = positionals;
  if (file === undefined || positionals.length > 1) {
    throw usageError(`config check: expected one config file, got ${positionals.length}.`);
  }
  const text = readConfigText(file);
  let document: unknown;
  try {
    document = parseConfigToml(text, file);
  } catch (error) {
    if (!isArborError(error, 'config')) throw error;
    await write(io.stderr, `${error.message}\n`);
    return EXIT.usage;
  }
  const problems = findConfigProblems(text, document);
  if (problems.length > 0) {
    await write(io.stderr, problems.map((problem) => `${formatProblem(file, problem)}\n`).join(''));
    return EXIT.usage;
  }
  await write(io.stdout, `${file}: ok\n`);
  return EXIT.ok;
}
