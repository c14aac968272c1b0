import { holdProcessWarnings } from './process-warnings.js';

// Imported first by the CLI's entry point, so warnings that other modules raise as they load are
// held too (see process-warnings.ts).
holdProcessWarnings();
