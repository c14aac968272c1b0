import type { MountPlan } from './sandbox-mounts.js';

/**
 * The `bwrap` arguments for a plan, up to (not including) the command: new PID, IPC, UTS, mount,
 * user, cgroup and network namespaces (the host's network shared back only where the operator
 * opted out of the egress proxy, `hostNetwork`), every capability dropped (so even root inside
 * cannot unmount what hides the store), a new session (no typing into the caller's terminal), and
 * death with the process that started it.
 */
export function bwrapArgs(plan: Pick<MountPlan, 'mounts' | 'cwd'>, hostNetwork = false): string[] {
  const args = ['--die-with-parent', '--new-session', '--unshare-all'];
  if (hostNetwork) args.push('--share-net');
  args.push('--cap-drop', 'ALL');
  for (const mount of plan.mounts) {
    switch (mount.op) {
      case 'ro-bind':
        args.push('--ro-bind', mount.src, mount.dest);
        break;
      case 'bind':
        args.push('--bind', mount.src, mount.dest);
        break;
      case 'symlink':
        args.push('--symlink', mount.target, mount.dest);
        break;
      case 'tmpfs':
        args.push('--tmpfs', mount.dest);
        break;
      case 'remount-ro':
        args.push('--remount-ro', mount.dest);
        break;
      case 'dir':
        args.push('--dir', mount.dest);
        break;
      case 'mask':
        args.push('--ro-bind', '/dev/null', mount.dest);
        break;
      case 'proc':
        args.push('--proc', mount.dest);
        break;
      case 'dev':
        args.push('--dev', mount.dest);
        break;
      default:
        return assertNever(mount);
    }
  }
  args.push('--chdir', plan.cwd);
  return args;
}

function assertNever(value: never): never {
  throw new Error(`unhandled mount ${JSON.stringify(value)}`);
}
