export { exitCodeFor } from '../runtime/index.js';
