import type { Caveats, CountBound, Scope } from '../protocol/index.js';

/**
 * The authority lattice over `Caveats`. Each axis is a `Scope` (`"all"`, or exactly the listed
 * items) or a `CountBound` (`"unlimited"`, or at most n); `⊑` and meet work axis by axis. There is
 * deliberately no join: nothing in arbor can compute "more authority than either side", so a
 * child can only ever hold `parent ⊓ requested`.
 *
 * Membership here is exact: a list is compared as a set (order and duplicates do not matter) and
 * an item is a member only if it is equal to a listed string. Treating a path as a prefix is an
 * enforcement concern (`path-scope.ts`), kept out of the algebra so the laws stay simple
 * and hold for every axis alike.
 */

const AXES = ['fs_read', 'fs_write', 'exec', 'net'] as const;

/** Everything allowed: the identity of meet. */
export function topCaveats(): Caveats {
  return { fs_read: 'all', fs_write: 'all', exec: 'all', net: 'all', max_calls: 'unlimited' };
}

/** Everything denied, no tool calls at all: what a plan subtask holds when it asks for nothing. */
export function bottomCaveats(): Caveats {
  return { fs_read: [], fs_write: [], exec: [], net: [], max_calls: 0 };
}

/** `a ⊑ b`: everything `a` allows, `b` allows too. */
export function scopeLeq(a: Scope, b: Scope): boolean {
  if (b === 'all') return true;
  if (a === 'all') return false;
  const allowed = new Set(b);
  return a.every((item) => allowed.has(item));
}

/**
 * `a ⊓ b`: what both allow. `"all"` is the identity; two lists intersect, keeping `a`'s order
 * without duplicates so a narrowed grant still reads like the list it came from.
 */
export function scopeMeet(a: Scope, b: Scope): Scope {
  if (a === 'all') return b === 'all' ? 'all' : unique(b);
  if (b === 'all') return unique(a);
  const allowed = new Set(b);
  return unique(a.filter((item) => allowed.has(item)));
}

/** Whether two scopes allow the same items (lists compared as sets). */
export function scopeEquals(a: Scope, b: Scope): boolean {
  return scopeLeq(a, b) && scopeLeq(b, a);
}

export function countLeq(a: CountBound, b: CountBound): boolean {
  if (b === 'unlimited') return true;
  if (a === 'unlimited') return false;
  return a <= b;
}

export function countMeet(a: CountBound, b: CountBound): CountBound {
  if (a === 'unlimited') return b;
  if (b === 'unlimited') return a;
  return Math.min(a, b);
}

/** `a ⊑ b` on every axis. */
export function caveatsLeq(a: Caveats, b: Caveats): boolean {
  return AXES.every((axis) => scopeLeq(a[axis], b[axis])) && countLeq(a.max_calls, b.max_calls);
}

/** `a ⊓ b` on every axis: the most authority that neither side exceeds. */
export function meetCaveats(a: Caveats, b: Caveats): Caveats {
  return {
    fs_read: scopeMeet(a.fs_read, b.fs_read),
    fs_write: scopeMeet(a.fs_write, b.fs_write),
    exec: scopeMeet(a.exec, b.exec),
    net: scopeMeet(a.net, b.net),
    max_calls: countMeet(a.max_calls, b.max_calls),
  };
}

/** Whether two grants allow exactly the same things. */
export function caveatsEqual(a: Caveats, b: Caveats): boolean {
  return caveatsLeq(a, b) && caveatsLeq(b, a);
}

/**
 * May `command` run? Only if the exec axis is `"all"` or lists this exact string. Never match a
 * basename, a prefix or a normalized form: a model-authored command goes to a shell, so a planted
 * `./cargo` matching a `cargo` grant, or `cargo; curl …` matching `cargo`, would be arbitrary code
 * execution.
 */
export function permitsExec(caveats: Caveats, command: string): boolean {
  return isMember(caveats.exec, command);
}

function isMember(scope: Scope, item: string): boolean {
  return scope === 'all' || scope.includes(item);
}

function unique(items: readonly string[]): string[] {
  return [...new Set(items)];
}
