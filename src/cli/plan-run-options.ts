import { FAILURE_POLICIES, type FailurePolicy } from '../plan/index.js';
import { parseDuration, validateAll } from '../config/index.js';
import { RUN_OPTIONS } from './run-options.js';
import { usageError } from './usage-error.js';

const { warm: _warm, ...SHARED } = RUN_OPTIONS;

/** The flags of `arbor plan run` and `arbor plan resume`: `arbor run`'s, but `--warm`, plus these. */
export const PLAN_RUN_OPTIONS = {
  ...SHARED,
  concurrency: { type: 'string' },
  'on-failure': { type: 'string' },
  worktrees: { type: 'boolean' },
  'verify-timeout': { type: 'string' },
  plan: { type: 'string' },
  'trust-run-log': { type: 'boolean' },
  force: { type: 'boolean' },
} as const;

export const PLAN_RUN_HELP = `Usage: arbor plan run <plan.toml> [options]
       arbor plan resume <plan.run.toml> [options]

Runs a plan's leaves as child agents in dependency order. Each leaf runs under the run's grant
met with its own caveat_policy (an axis it leaves out is denied), its write lane (context)
folded into fs_write; its verify command runs after it if its exec caveat permits that exact
command. The authored file is never written: the run-log, plan.run.toml beside it, is rewritten
atomically after every transition. \`resume\` continues a run-log: done leaves are kept, every
other leaf runs again. When the run it names was interrupted (its supervisor died), that run
itself continues: a leaf caught running goes on from its recorded transcript, and one that had
ended keeps its result (under --worktrees, a leaf not done starts over in a fresh worktree).
A resume takes every leaf's instruction and authority from the authored plan (plan.toml beside
plan.run.toml, or --plan); the run-log gives only statuses and results, so editing it cannot
widen a leaf, and a run-log that is not byte for byte what its run last recorded in the store is
refused unless --trust-run-log is given.

Plan options:
  --concurrency N          leaves with parallel_ok that may run at once (default 4); a leaf
                           without parallel_ok always runs alone, in document order
  --on-failure stop|continue  stop: no new leaf starts after a failure (default); continue:
                           independent leaves go on. Either way a failed leaf's dependents
                           are blocked
  --verify-timeout DURATION   limit for each verify command (default 5m)
  --worktrees              each leaf in its own git worktree and branch arbor/<run>/<leaf>,
                           based on its deps' commits; done leaves are merged at the end into
                           arbor/<run>/merged and every conflict is reported
  --provider process|spawn|queue  how leaves run: own process (default), in this process, or
                           spread over fleet workers (\`arbor worker\`; needs --redis or
                           ARBOR_REDIS_URL, the supervisor's key and [[queue.admit]], as for
                           \`arbor run\`). With --worktrees, leaves stay
                           on this machine, where their worktrees are
  --redis URL              the fleet's Redis, without a password (see \`arbor run --help\`)
  --plan FILE              (resume) the authored plan of the run-log (default: its name
                           without .run)
  --force                  (run) start over when plan.run.toml exists, overwriting it (without
                           it, \`plan run\` refuses and names \`plan resume\`)
  --trust-run-log          (resume) take statuses and results from a run-log that does not
                           match what its run last recorded in the store (edited by hand, or
                           written by something other than arbor)

Model, limits, authority, tools and --config, --db, --json, --mock-llm, --ask-fallback are those
of \`arbor run\` (see \`arbor run --help\`); --max-steps applies to each leaf.

Exit codes: 0 every leaf done, 2 bad usage or an invalid plan, 3 a leaf failed, was blocked or
cancelled, or a merge conflicted, 130 interrupted; 1 internal error.
`;

export interface PlanRunFlags {
  concurrency: number;
  onFailure: FailurePolicy;
  worktrees: boolean;
  verifyTimeoutMs: number;
}

const DEFAULT_CONCURRENCY = 4;
const DEFAULT_VERIFY_TIMEOUT_MS = 300_000;

/** Validates the plan-only flags; a bad one is a usage error naming it. */
export function resolvePlanRunFlags(values: {
  concurrency?: string | undefined;
  'on-failure'?: string | undefined;
  worktrees?: boolean | undefined;
  'verify-timeout'?: string | undefined;
}): PlanRunFlags {
  const concurrency = values.concurrency ?? String(DEFAULT_CONCURRENCY);
  const onFailure = values['on-failure'] ?? 'stop';
  const verifyTimeout = values['verify-timeout'];
  return validateAll({
    concurrency: () => {
      if (!/^[1-9]\d*$/.test(concurrency) || Number(concurrency) > 1_000) {
        throw usageError(
          `Expected \`--concurrency\` to be a whole number from 1 to 1000, got \`${concurrency}\`.`,
        );
      }
      return Number(concurrency);
    },
    onFailure: () => {
      if (!(FAILURE_POLICIES as readonly string[]).includes(onFailure))
        throw usageError(`Expected \`--on-failure\` to be stop or continue, got \`${onFailure}\`.`);
      return onFailure as FailurePolicy;
    },
    worktrees: () => values.worktrees === true,
    verifyTimeoutMs: () =>
      verifyTimeout === undefined
        ? DEFAULT_VERIFY_TIMEOUT_MS
        : parseDuration(verifyTimeout, '--verify-timeout'),
  });
}
