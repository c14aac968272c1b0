import { permitsExec, permitsNet, permitsPath } from '../authority/index.js';
import type { Caveats, JsonObject } from '../protocol/index.js';

/** The built-in tools whose authority is a path, by the axis that grants it. */
const PATH_TOOLS: Readonly<Record<string, 'fs_read' | 'fs_write'>> = {
  'fs.read': 'fs_read',
  'fs.list': 'fs_read',
  'fs.glob': 'fs_read',
  'fs.write': 'fs_write',
  'fs.edit': 'fs_write',
};

/**
 * Why the grant held now would refuse a recorded built-in call, before its recorded result is
 * served: the path outside `fs_read`/`fs_write`, the command not in `exec`, the host not in `net`.
 * A replay runs nothing, so these are the grant's own rules read from the arguments alone (the
 * checks on real paths, links and addresses happen when a tool runs, live). Undefined: allowed,
 * or not a built-in this checks.
 */
export function recordedCallRefusal(
  name: string,
  args: JsonObject,
  caveats: Caveats,
  cwd: string,
): string | undefined {
  const axis = PATH_TOOLS[name];
  if (axis !== undefined) {
    const target = typeof args.path === 'string' ? args.path : '.';
    return permitsPath(caveats[axis], target, { cwd })
      ? undefined
      : `\`${name}\` refused: \`${target}\` is outside the ${axis} grant held now.`;
  }
  if (name === 'exec' && typeof args.command === 'string')
    return permitsExec(caveats, args.command)
      ? undefined
      : `\`exec\` refused: \`${args.command}\` is not an allowed command under the grant held now.`;
  if (name === 'http.fetch' && typeof args.url === 'string') {
    let url: URL;
    try {
      url = new URL(args.url);
    } catch {
      return undefined;
    }
    const port = url.port === '' ? (url.protocol === 'https:' ? 443 : 80) : Number(url.port);
    return permitsNet(caveats.net, url.hostname.replace(/^\[|\]$/g, ''), port).allowed
      ? undefined
      : `\`http.fetch\` refused: ${url.host} is outside the net grant held now.`;
  }
  return undefined;
}
