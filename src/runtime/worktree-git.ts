import { RepoGit } from '../plan/index.js';
import { ArborError, ProtectedPathSchema, SandboxSettingsSchema } from '../protocol/index.js';
import { locateTrustedBinary, operatorSetting, SANDBOX_HINT } from '../tools/index.js';
import { trustContext } from './run-safety.js';
import type { RunStart } from './runtime.js';

/**
 * The git `--worktrees` runs on the user's repository and the leaves' worktrees: a trusted binary
 * (`ARBOR_GIT`, `security.git`, else the system directories — never `PATH`), each call in a
 * sandbox of its own. Where bubblewrap is unavailable, `--worktrees` is refused (a leaf's filter
 * or config would otherwise run with the host's view, the API key in reach) unless the operator
 * turned the sandbox off. Both refusals are the user's to fix: `usage` errors.
 */
export function worktreeGit(start: RunStart, env: NodeJS.ProcessEnv, cwd: string): RepoGit {
  // The template holds the schemas' input (defaults not yet applied): applied here, as a payload's.
  const sandbox = SandboxSettingsSchema.parse(start.safety.template.sandbox ?? {});
  const protect = ProtectedPathSchema.array().parse(start.safety.template.protected_paths ?? []);
  if (sandbox.mode === 'unavailable')
    throw new ArborError(
      'usage',
      `--worktrees runs git on what the run's agents wrote, and only in a sandbox, but the ` +
        `sandbox is unavailable (${sandbox.reason ?? 'bubblewrap cannot run here'}): ${SANDBOX_HINT}.`,
    );
  const setting = operatorSetting(env, 'ARBOR_GIT', 'security.git', start.config.security.git);
  const found = locateTrustedBinary('git', setting, trustContext(start.config.grant, cwd));
  if (!found.trusted)
    throw new ArborError(
      'usage',
      `--worktrees needs a git arbor can trust: ${found.path === undefined ? '' : `${found.path} (${found.origin ?? 'found'}): `}${found.reason}.`,
    );
  return new RepoGit({ git: found.path, sandbox, protect });
}
