import { createRequire } from 'node:module';

const require = createRequire(import.meta.url);
const manifest = require('../../package.json') as { version: string };

/** arbor's version, from its package manifest. */
export const VERSION: string = manifest.version;
