import { EXIT } from '../runtime/index.js';
import { write, type CliIo } from './output.js';
import { PLAN_RUN_HELP, planRun } from './plan-run.js';
import { PLAN_SHOW_HELP, planShow } from './plan-show.js';
import { PLAN_VALIDATE_HELP, planValidate } from './plan-validate.js';
import { usageError } from './usage-error.js';

interface PlanSubcommand {
  /** One line for `arbor plan --help`. */
  summary: string;
  help: string;
  run: (args: string[], io: CliIo) => Promise<number>;
}

/** `arbor plan <subcommand>`: add a row here to add a subcommand. */
const SUBCOMMANDS: Record<string, PlanSubcommand> = {
  validate: {
    summary: 'check a plan file and report every problem',
    help: PLAN_VALIDATE_HELP,
    run: planValidate,
  },
  run: {
    summary: 'run a plan: leaves as child agents in dependency order, with a run-log',
    help: PLAN_RUN_HELP,
    run: (args, io) => planRun(args, io, false),
  },
  resume: {
    summary: 'continue a run-log: done leaves are kept, the others run again',
    help: PLAN_RUN_HELP,
    run: (args, io) => planRun(args, io, true),
  },
  show: {
    summary: 'draw a plan or run-log: the task tree and the dependencies, with statuses',
    help: PLAN_SHOW_HELP,
    run: planShow,
  },
};

const PLAN_HELP = `Usage: arbor plan <subcommand> <plan.toml> [options]

Plans are TOML files of [[subtask]] tables; see docs/plans.md.

Subcommands:
${Object.entries(SUBCOMMANDS)
  .map(([name, sub]) => `  ${name.padEnd(10)} ${sub.summary}`)
  .join('\n')}

Run \`arbor plan <subcommand> --help\` for its options.
`;

export async function planCommand(args: string[], io: CliIo): Promise<number> {
  const [name, ...rest] = args;
  if (name === undefined || name === '--help' || name === '-h') {
    await write(io.stdout, PLAN_HELP);
    return name === undefined ? EXIT.usage : EXIT.ok;
  }
  const sub = Object.hasOwn(SUBCOMMANDS, name) ? SUBCOMMANDS[name] : undefined;
  if (sub === undefined) {
    const known = Object.keys(SUBCOMMANDS).map((key) => `\`plan ${key}\``);
    throw usageError(`Unknown subcommand \`plan ${name}\`; expected one of ${known.join(', ')}.`);
  }
  return sub.run(rest, io);
}
