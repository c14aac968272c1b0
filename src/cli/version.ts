import { ARBOR_VERSION } from '../protocol/index.js';

/** arbor's version, from its package manifest. */
export const VERSION: string = ARBOR_VERSION;
