export { DETECTOR_RULES, MAX_SCANNED_CHARS, detectInjection } from './detect-injection.js';
export {
  isolationPrompt,
  limitBytes,
  mintMarker,
  wrapUntrusted,
  type BoundaryOptions,
} from './untrusted-boundary.js';
