import path from 'node:path';

/**
 * Files whose contents make a node *sensitive* once it reads them: secrets, keys and credentials.
 * A pattern without a `/` is matched against the file's name (`.env.*`); one with a `/` against
 * the end of its path, component by component (`.aws/credentials`). Ordinary project files match
 * none of these, so a coding agent that reads its sources stays non-sensitive.
 */
const DEFAULT_SENSITIVE_PATTERNS: readonly string[] = [
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
  readonly #patterns: readonly string[];
  #compiled: Promise<Matchers> | undefined;

  /** `extra`: patterns on top of the defaults (`security.sensitive_paths`). */
  constructor(extra: readonly string[] = []) {
    this.#patterns = [...DEFAULT_SENSITIVE_PATTERNS, ...extra];
  }

  /** Is `p` (absolute or relative, any separators) a sensitive file? */
  async matches(p: string): Promise<boolean> {
    return isSensitive(p, await this.#compile());
  }

  /**
   * The sensitive files a shell command names, by its words: `cat .env`, `source ~/.aws/config`,
   * `grep KEY config/secrets.yml`. A command that reads one without naming it (`cat *`) is caught,
   * if at all, by its output looking like a credential.
   */
  async namedIn(command: string): Promise<string[]> {
    const matchers = await this.#compile();
    const words = command.split(/[\s;|&<>()`'"=]+/).filter((w) => w !== '' && !w.startsWith('-'));
    return [...new Set(words.filter((word) => isSensitive(word, matchers)))];
  }

  /** picomatch is loaded and the patterns compiled on first use: most agents never need them. */
  #compile(): Promise<Matchers> {
    this.#compiled ??= import('picomatch').then(({ default: picomatch }) => {
      const names = this.#patterns.filter((p) => !p.includes('/'));
      const paths = this.#patterns
        .filter((p) => p.includes('/'))
        .map((p) => `**/${p.replace(/^\/+/, '')}`);
      // picomatch needs one pattern at least; NUL matches no path.
      const options = { dot: true, nocase: false };
      return {
        byName: picomatch(names.length === 0 ? ['\0'] : names, options),
        byPath: picomatch(paths.length === 0 ? ['\0'] : paths, options),
      };
    });
    return this.#compiled;
  }
}

interface Matchers {
  byName: (test: string) => boolean;
  byPath: (test: string) => boolean;
}

function isSensitive(p: string, { byName, byPath }: Matchers): boolean {
  const posix = p
    .split(path.sep)
    .join('/')
    .replace(/^~(?=\/)/, '');
  const name = path.posix.basename(posix);
  if (name.endsWith('.pub')) return false;
  return byName(name) || byPath(posix.startsWith('/') ? posix : `/${posix}`);
}
