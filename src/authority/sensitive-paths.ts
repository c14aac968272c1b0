import path from 'node:path';
import picomatch from 'picomatch';

/**
 * Files whose contents make a node *sensitive* once it reads them: secrets, keys and credentials.
 * A pattern without a `/` is matched against the file's name (`.env.*`); one with a `/` against
 * the end of its path, component by component (`.aws/credentials`). Ordinary project files match
 * none of these, so a coding agent that reads its sources stays non-sensitive.
 */
export const DEFAULT_SENSITIVE_PATTERNS: readonly string[] = [
  '.env',
  '.env.*',
  '*.pem',
  '*.key',
  '*.p12',
  '*.pfx',
  'id_rsa',
  'id_dsa',
  'id_ecdsa',
  'id_ed25519',
  'id_*_sk',
  '.npmrc',
  '.pypirc',
  '.netrc',
  '.pgpass',
  '.htpasswd',
  '.git-credentials',
  'credentials*',
  'secrets*',
  '.aws/credentials',
  '.aws/config',
  '.config/gcloud/**',
  '.azure/**',
  '.kube/config',
  '.docker/config.json',
  '.config/gh/hosts.yml',
  '.terraform.d/credentials.tfrc.json',
  '.cargo/credentials.toml',
];

/** Tells whether a path names a sensitive file. */
export class SensitiveMatcher {
  readonly #byName: picomatch.Matcher;
  readonly #byPath: picomatch.Matcher;
  readonly #hasPathPatterns: boolean;

  /** `extra`: patterns on top of the defaults (`security.sensitive_paths`). */
  constructor(extra: readonly string[] = []) {
    const all = [...DEFAULT_SENSITIVE_PATTERNS, ...extra];
    const names = all.filter((p) => !p.includes('/'));
    const paths = all.filter((p) => p.includes('/')).map((p) => `**/${p.replace(/^\/+/, '')}`);
    const options = { dot: true, nocase: false };
    this.#byName = picomatch(names.length === 0 ? ['\0'] : names, options);
    this.#byPath = picomatch(paths.length === 0 ? ['\0'] : paths, options);
    this.#hasPathPatterns = paths.length > 0;
  }

  /** Is `p` (absolute or relative, any separators) a sensitive file? */
  matches(p: string): boolean {
    const posix = p
      .split(path.sep)
      .join('/')
      .replace(/^~(?=\/)/, '');
    const name = path.posix.basename(posix);
    if (name.endsWith('.pub')) return false;
    if (this.#byName(name)) return true;
    if (!this.#hasPathPatterns) return false;
    const rooted = posix.startsWith('/') ? posix : `/${posix}`;
    return this.#byPath(rooted);
  }

  /**
   * The sensitive files a shell command names, by its words: `cat .env`, `source ~/.aws/config`,
   * `grep KEY config/secrets.yml`. A command that reads one without naming it (`cat *`) is caught,
   * if at all, by its output looking like a credential.
   */
  namedIn(command: string): string[] {
    const words = command.split(/[\s;|&<>()`'"=]+/).filter((w) => w !== '' && !w.startsWith('-'));
    return [...new Set(words.filter((word) => this.matches(word)))];
  }
}
