import { createHash, randomBytes, timingSafeEqual } from 'node:crypto';

/** Who is looking at the dashboard: a principal of `arbor serve`, or `arbor ui`'s one user. */
export interface Viewer {
  name: string;
  role: 'operator' | 'user';
}

/** The session cookie's name. */
export const SESSION_COOKIE = 'arbor_session';

/** How long a session lasts without being used. */
const IDLE_MS = 12 * 60 * 60 * 1000;
/** At most this many sessions are held; the least recently used goes first. */
const MAX_SESSIONS = 1000;

/**
 * The dashboard's sign-ins. A browser signs in once with a token (a principal's, or `arbor ui`'s
 * one-time token) and then holds a random session id in an HttpOnly, SameSite=Strict cookie:
 * `EventSource` cannot send a bearer header, and a script on the page never sees the cookie. Only a
 * digest of each session id is kept, so a heap dump does not hold a usable cookie.
 */
export class Sessions {
  readonly #sessions = new Map<string, { viewer: Viewer; seen: number }>();
  readonly #now: () => number;

  constructor(now: () => number = Date.now) {
    this.#now = now;
  }

  /** Starts a session for `viewer`; returns the cookie's value. */
  open(viewer: Viewer): string {
    const id = randomBytes(32).toString('base64url');
    this.#sessions.set(digest(id), { viewer, seen: this.#now() });
    while (this.#sessions.size > MAX_SESSIONS) {
      const oldest = this.#sessions.keys().next().value;
      if (oldest === undefined) break;
      this.#sessions.delete(oldest);
    }
    return id;
  }

  /** The viewer of a live session, or undefined (unknown, or idle too long). */
  viewer(id: string | undefined): Viewer | undefined {
    if (id === undefined || id === '') return undefined;
    const key = digest(id);
    const session = this.#sessions.get(key);
    if (session === undefined) return undefined;
    if (this.#now() - session.seen > IDLE_MS) {
      this.#sessions.delete(key);
      return undefined;
    }
    // Most recently used last: the map's order is the eviction order.
    this.#sessions.delete(key);
    this.#sessions.set(key, { viewer: session.viewer, seen: this.#now() });
    return session.viewer;
  }

  close(id: string | undefined): void {
    if (id !== undefined) this.#sessions.delete(digest(id));
  }
}

/**
 * `arbor ui`'s sign-in: one token, made at start and printed in the URL, good for one sign-in
 * (as Jupyter's is good for its browser). Compared as digests in constant time.
 */
export class OneTimeToken {
  readonly token = randomBytes(24).toString('base64url');
  readonly #digest = digestBytes(this.token);
  #used = false;

  /** True once, for the right token; every later try fails. */
  take(candidate: string): boolean {
    const ok = timingSafeEqual(digestBytes(candidate), this.#digest);
    if (!ok || this.#used) return false;
    this.#used = true;
    return true;
  }

  get used(): boolean {
    return this.#used;
  }
}

function digestBytes(text: string): Buffer {
  return createHash('sha256').update(text).digest();
}

function digest(text: string): string {
  return digestBytes(text).toString('base64url');
}
