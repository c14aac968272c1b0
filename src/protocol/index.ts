export {
  AgentFrameSchema,
  BudgetRequestFrameSchema,
  EventFrameSchema,
  FailedFrameSchema,
  GateClosedFrameSchema,
  GateFrameSchema,
  IntelHealthFrameSchema,
  PongFrameSchema,
  ReadyFrameSchema,
  ResultFrameSchema,
  ToolRequestFrameSchema,
  TurnDoneFrameSchema,
  TurnFrameSchema,
  UsageFrameSchema,
  type AgentFrame,
  type AgentFrameType,
} from './agent-frames.js';
export {
  CaveatsSchema,
  CountBoundSchema,
  ScopeSchema,
  type Caveats,
  type CountBound,
  type Scope,
} from './caveats.js';
export {
  BudgetGrantFrameSchema,
  CancelFrameSchema,
  ControlFrameSchema,
  InjectFrameSchema,
  PauseFrameSchema,
  PingFrameSchema,
  ResumeFrameSchema,
  SpawnFrameSchema,
  SwapIntelFrameSchema,
  ToolResultFrameSchema,
  type ControlFrame,
  type ControlFrameType,
} from './control-frames.js';
export {
  FRAME_TYPES,
  decodeLine,
  findForbiddenKey,
  type DecodeResult,
  type Direction,
  type Frame,
  type FrameOf,
} from './decode.js';
export { encodeFrame } from './encode.js';
export {
  EndpointRefSchema,
  EndpointScopeSchema,
  IntelLimitsFrameSchema,
  RateLimitAxisSchema,
  RateLimitNameSchema,
  type EndpointRef,
  type IntelLimitsFrame,
  type RateLimitAxis,
  type RateLimitName,
} from './rate-limits.js';
export { nestsDeeperThan } from './json-depth.js';
export { CHILD_EVENT_TYPES, type ChildEvent, type ChildEventType } from './child-events.js';
export {
  EventBaseSchema,
  NodeStatusSchema,
  RUN_EVENT_FIELDS,
  RUN_EVENT_TYPES,
  RunEventSchema,
  type EventBase,
  type RunEvent,
  type RunEventArgs,
  type RunEventBody,
  type RunEventBodyOf,
  type RunEventFields,
  type RunEventOf,
  type RunEventType,
} from './run-events.js';
export {
  eventBody,
  fromStoredEvent,
  fromWireEvent,
  readChildEvent,
  toCamel,
  toEventLine,
  toSnake,
  toEventFrame,
  toStoredEvent,
  toWireEvent,
  typeOfWireName,
  wireNameOf,
} from './run-event-codec.js';
export {
  EventLineSchema,
  GateViewSchema,
  NodeDetailSchema,
  NodeViewSchema,
  RunDetailSchema,
  RunSummarySchema,
  ViewerViewSchema,
  WireEventSchema,
  type EventLine,
  type GateView,
  type NodeDetail,
  type NodeView,
  type RunDetail,
  type RunSummary,
  type ViewerView,
  type WireEvent,
} from './run-views.js';
export {
  TRANSCRIPT_EVENT,
  ChildTranscriptEntrySchema,
  TranscriptEntrySchema,
  announcedTurns,
  replayTranscript,
  turnAnnounced,
  type ChildTranscriptEntry,
  type TranscriptEntry,
} from './transcript-entry.js';
export { shownTranscript } from './shown-transcript.js';
export {
  TRANSCRIPT_PART_CHARS,
  TranscriptPartSchema,
  transcriptParts,
  type TranscriptPart,
} from './transcript-part.js';
export {
  ArborError,
  ERROR_CODES,
  ErrorPayloadSchema,
  fromErrorPayload,
  isArborError,
  toErrorPayload,
  type ArborErrorOptions,
  type ErrorCode,
  type ErrorPayload,
  type Fault,
} from './errors.js';
export {
  BreakerSettingsSchema,
  DialectSchema,
  EndpointSchema,
  HttpUrlSchema,
  IntelActiveSchema,
  IntelConfigSchema,
  ModelPriceSchema,
  SamplingSchema,
  ReasoningEffortSchema,
  type ReasoningEffort,
  SwapPolicySchema,
  type BreakerSettings,
  type Dialect,
  type Endpoint,
  type IntelActive,
  type IntelConfig,
  type ModelPrice,
  type Sampling,
  type SwapPolicy,
} from './intelligence.js';
export { describeValue, formatIssues, formatPath } from './issues.js';
export { DEFAULT_LIMITS } from './default-limits.js';
export {
  LOG_LEVELS,
  LimitsSchema,
  TelemetrySchema,
  type Limits,
  type Telemetry,
} from './limits.js';
export {
  ALLOWED_TOOLS_ROLE,
  SEED_ROLES,
  SeedMessageSchema,
  ToolCallSchema,
  ToolDefSchema,
  TranscriptMessageSchema,
  ReasoningTraceSchema,
  type ReasoningTrace,
  type SeedMessage,
  type ToolCall,
  type ToolDef,
  type TranscriptMessage,
} from './messages.js';
export { NdjsonReader, type LineDecoder, type NdjsonReaderOptions } from './ndjson-reader.js';
export {
  OutcomeSchema,
  ScheduleRequestSchema,
  SubscriptionRequestSchema,
  TERMINAL_STATUSES,
  TerminalStatusSchema,
  UsageSchema,
  outcomeOf,
  type Outcome,
  type ScheduleRequest,
  type SubscriptionRequest,
  type TerminalStatus,
  type Usage,
} from './outcome.js';
export { usageFromMetadata, usageToMetadata, type CamelUsage } from './usage-metadata.js';
export {
  ContentFlaggedEventSchema,
  ContentIsolationSchema,
  EgressSchema,
  ProtectedPathSchema,
  TrajectoryEventSchema,
  type ContentFlaggedEvent,
  type TrajectoryEvent,
  RuntimeTrifectaModeSchema,
  RuntimeTrifectaSchema,
  SandboxSettingsSchema,
  TaintSchema,
  type ContentIsolation,
  type Egress,
  type ProtectedPath,
  type RuntimeTrifecta,
  type RuntimeTrifectaMode,
  type SandboxSettings,
  type Taint,
} from './safety.js';
export {
  RoutedToolSchema,
  type RoutedTool,
  OrchestratorSchema,
  SpawnPayloadSchema,
  type Orchestrator,
  type SpawnPayload,
  type SpawnPayloadInput,
} from './payload.js';
export {
  CountSchema,
  HeadersSchema,
  JsonObjectSchema,
  JsonValueSchema,
  MillisSchema,
  NonBlankSchema,
  PositiveIntSchema,
  type JsonObject,
} from './primitives.js';
export { createFrameReader, readFrames } from './read-frames.js';
export { looksSecret, scrubSecrets } from './scrub-secrets.js';
export {
  intelSecrets,
  netCredentialSecrets,
  payloadSecrets,
  urlSecrets,
} from './payload-secrets.js';
export { NetCredentialSchema, NetCredentialsSchema, type NetCredential } from './net-credential.js';
export { MIN_SECRET_LENGTH } from './secret-patterns.js';
export { OPAQUE_FIELDS, SecretScrubber } from './secret-scrubber.js';
export { MAX_HELD_CHARS, StreamScrubber } from './stream-scrubber.js';
export {
  holdsCredential,
  REDACTED,
  redactFrame,
  redactIntel,
  redactPayload,
  redactSecretMap,
  redactUrl,
} from './redact.js';
export {
  A2aPeerSpecSchema,
  AAuthSettingsSchema,
  McpServerSpecSchema,
  ServerNameSchema,
  TrifectaTagSchema,
  type A2aPeerSpec,
  type AAuthSettings,
  type McpServerSpec,
  type TrifectaTag,
} from './servers.js';
export {
  FinishSchema,
  McpRouteSchema,
  RoleSchema,
  TurnKindSchema,
  TurnResultSchema,
  TurnSpecSchema,
  type Finish,
  type McpRoute,
  type Role,
  type TurnKind,
  type TurnResult,
  type TurnSpec,
} from './turn.js';
export { ARBOR_VERSION } from './arbor-version.js';
export { MAX_FRAME_BYTES, MAX_FRAME_DEPTH, PROTOCOL_VERSION } from './version.js';
export { CHILD_BOUNDS } from './bounds.js';
export {
  VIOLATION_CODES,
  describeViolation,
  excerptOf,
  type ProtocolViolation,
  type ViolationCode,
} from './violation.js';
export {
  cut as cutLines,
  diffMessages,
  type MessageDivergence,
  type MessageDivergenceKind,
} from './message-diff.js';
export {
  REQUEST_DIVERGENCES,
  ReplayCallSchema,
  ReplayPayloadSchema,
  type ReplayCall,
  type ReplayPayload,
} from './replay-payload.js';
