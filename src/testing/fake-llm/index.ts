export { loadPlaybook, parsePlaybook } from './load-playbook.js';
export {
  FaultSchema,
  MatchSchema,
  PlaybookSchema,
  ScriptSchema,
  ScriptedToolCallSchema,
  StepSchema,
  type Fault,
  type Match,
  type Playbook,
  type PlaybookInput,
  type Script,
  type Step,
  type StepInput,
} from './playbook.js';
export { RecordedRequestSchema, type RecordedRequest } from './recorded-request.js';
export { startFakeLlm, type FakeLlm, type FakeLlmOptions } from './start-fake-llm.js';
export { writeFileAtomic } from './write-file-atomic.js';
