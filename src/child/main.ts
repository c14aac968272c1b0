import { startChild } from './child-start.js';

/** Entry of a child process started from the one-file bundle (`dist/bundle/child.mjs`). */
await startChild('bundle');
