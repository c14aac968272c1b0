/**
 * What the dashboard's API answers, in the field names of the events and the store: defined once,
 * beside the server's other wire shapes (`src/protocol/run-views.ts`), and only read here. These
 * modules import nothing of Node's, so the page type-checks against them.
 */
export type {
  GateView as Gate,
  NodeDetail,
  NodeView,
  RunDetail,
  RunSummary,
  ViewerView as Me,
  WireEvent,
} from '../../src/protocol/run-views.js';
export type { TranscriptMessage } from '../../src/protocol/messages.js';
export type { Usage } from '../../src/protocol/outcome.js';
