import { leaves, planWarnings, validatePlan } from '../plan/index.js';
import { EXIT } from '../runtime/index.js';
import { write, type CliIo } from './output.js';
import { loadPlan, parsePlanArgs } from './plan-load.js';
import { usageError } from './usage-error.js';

export const PLAN_VALIDATE_HELP = `Usage: arbor plan validate <plan.toml> [--fragment]

Checks a plan file: TOML syntax, unknown keys, field types, duplicate or blank ids, blank
instructions, deps and parents that name no subtask, dependency cycles, parent cycles, deps on
branch nodes, and a plan with no leaves. Works on a run-log (.run.toml) too.

Prints "ok: N subtasks, M leaves" and exits 0, or prints every problem, one per line, to stderr
and exits 2. What is valid but most likely a mistake (a leaf that grants an axis but no max_calls,
so every tool call it makes would be refused) is printed to stderr as a warning.

Options:
  --fragment   the file is a slice of a larger plan: deps and parents may name subtasks outside it
`;

export async function planValidate(args: string[], io: CliIo): Promise<number> {
  const { file, values } = parsePlanArgs('plan validate', args, {
    fragment: { type: 'boolean' },
    help: { type: 'boolean', short: 'h' },
  });
  if (values.help === true) {
    await write(io.stdout, PLAN_VALIDATE_HELP);
    return EXIT.ok;
  }
  if (file === undefined) throw usageError('plan validate: expected a plan file.');
  const plan = await loadPlan(file, io);
  if (plan === undefined) return EXIT.usage;
  const findings = validatePlan(plan, { fragment: values.fragment === true });
  if (findings.length > 0) {
    const lines = findings.map((finding) => `${file}: ${finding.message} [${finding.code}]\n`);
    await write(io.stderr, lines.join(''));
    return EXIT.usage;
  }
  const warnings = planWarnings(plan).map((warning) => `${file}: warning: ${warning}\n`);
  if (warnings.length > 0) await write(io.stderr, warnings.join(''));
  const n = plan.subtask.length;
  const m = leaves(plan).length;
  await write(
    io.stdout,
    `ok: ${n} ${n === 1 ? 'subtask' : 'subtasks'}, ${m} ${m === 1 ? 'leaf' : 'leaves'}\n`,
  );
  return EXIT.ok;
}
