export { DETECTOR_RULES, detectInjection } from './detect-injection.js';
export { isolationPrompt, limitBytes, mintMarker, wrapUntrusted } from './untrusted-boundary.js';
