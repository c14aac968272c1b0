import path from 'node:path';
import { isInside } from '../../src/authority/index.js';
import type { Mount } from '../../src/tools/index.js';

/** What a process in a sandbox sees at a path. */
export type MountState =
  | { kind: 'none' }
  | { kind: 'private' }
  | { kind: 'masked' }
  | { kind: 'host'; rw: boolean; host: string };

/** What a process in the sandbox sees at `q`, applying the mounts as bubblewrap does, in order. */
export function stateAt(mounts: readonly Mount[], q: string): MountState {
  const layers: { mount: Mount; rw: boolean }[] = [];
  for (const mount of mounts) {
    if (mount.op === 'remount-ro') {
      const target = layers.findLast((l) => l.mount.dest === mount.dest);
      if (target !== undefined) target.rw = false;
      continue;
    }
    if (mount.op === 'dir' || mount.op === 'symlink') continue;
    layers.push({ mount, rw: mount.op === 'bind' || mount.op === 'tmpfs' });
  }
  const layer = layers.findLast((l) => isInside(l.mount.dest, q));
  if (layer === undefined) return { kind: 'none' };
  const { mount } = layer;
  if (mount.op === 'mask') return { kind: 'masked' };
  if (mount.op === 'bind' || mount.op === 'ro-bind') {
    return {
      kind: 'host',
      rw: layer.rw,
      host: path.join(mount.src, path.relative(mount.dest, q)),
    };
  }
  return { kind: 'private' };
}
