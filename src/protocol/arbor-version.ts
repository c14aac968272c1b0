import { createRequire } from 'node:module';

const require = createRequire(import.meta.url);

/**
 * arbor's version, from its package manifest. The manifest is found by walking up from this
 * module, which sits at different depths in the sources, the per-module build and the bundles.
 */
function readVersion(): string {
  for (let up = 1; up <= 5; up++) {
    try {
      const manifest = require(`${'../'.repeat(up)}package.json`) as {
        name?: string;
        version?: string;
      };
      if (manifest.name === 'arbor' && typeof manifest.version === 'string')
        return manifest.version;
    } catch {
      // Not at this level: keep walking up.
    }
  }
  return 'unknown';
}

export const ARBOR_VERSION: string = readVersion();
