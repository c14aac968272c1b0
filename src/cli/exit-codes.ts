export { EXIT, type ExitCode } from '../runtime/index.js';
