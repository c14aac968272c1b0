import { z } from 'zod';
import { CaveatsSchema } from './caveats.js';
import { SamplingSchema } from './intelligence.js';
import { LimitsSchema } from './limits.js';
import { ReasoningTraceSchema, ToolDefSchema, TranscriptMessageSchema } from './messages.js';
import { EventLineSchema, NodeViewSchema, RunSummarySchema } from './run-views.js';

/**
 * A recorded run as one JSON document (`arbor runs export`), versioned so a later arbor (`arbor
 * replay`, golden runs in `arbor/testing`) can read it on another machine. `docs/run-files.md`
 * documents it. A change that an older reader would misread is a new version.
 */

/** The format this arbor writes and reads: `arbor.run/` and its version. */
export const RUN_FILE_FORMAT = 'arbor.run/1';
/** The version of `RUN_FILE_FORMAT`; files without a `format` are version 0. */
export const RUN_FILE_VERSION = 1;
/** How every version of the format is named: `arbor.run/N`. */
export const RUN_FILE_FORMAT_PATTERN = /^arbor\.run\/(\d+)$/;

/**
 * What one model call of a node asked for, as a replay needs it to ask the same again. `call`
 * counts the node's calls from 1 across its turns and restarts; `step` is the call's step within
 * its turn (a warm node's steps start again at 1 each turn).
 */
const ModelCallRecordSchema = z.object({
  call: z.number().int().positive(),
  step: z.number(),
  /** Which endpoint of the node's intelligence answered (0-based). */
  endpoint: z.number(),
  /** The model that answered, as the server reported it. */
  model: z.string(),
  /** The model the call named; absent when an older child did not record it. */
  model_asked: z.string().optional(),
  /** The model the loop chose for the call (a budget degrade); absent: the endpoint's. */
  request_model: z.string().optional(),
  /** The sampling sent (the config's under the endpoint's); absent: none was set, or not recorded. */
  sampling: SamplingSchema.optional(),
  /** The tools offered, by digest: the set is `tools[digest]` of the file. Absent: not recorded. */
  tools_digest: z.string().optional(),
  /** The system prompt sent, by digest (its `model.system` event holds it). Absent: not recorded. */
  system_digest: z.string().optional(),
});
export type ModelCallRecord = z.infer<typeof ModelCallRecordSchema>;

/**
 * A transcript message as the file carries it: as shown (`arbor runs transcript`), with an
 * assistant message's reasoning (a thinking model's blocks, verbatim and possibly signed or
 * encrypted) apart in `opaque_reasoning`, for a replay to send back, never to display.
 */
const RunFileMessageSchema = z.intersection(
  TranscriptMessageSchema,
  z.object({ opaque_reasoning: ReasoningTraceSchema.optional() }),
);
export type RunFileMessage = z.infer<typeof RunFileMessageSchema>;

/** A question a node put to a person, and how it was answered (the store's record). */
const RunFileGateSchema = z.object({
  runId: z.string(),
  id: z.string(),
  nodeId: z.string().optional(),
  question: z.string(),
  payload: z.record(z.string(), z.unknown()),
  status: z.enum(['open', 'answered', 'timed_out', 'failed']),
  answer: z.string().optional(),
  via: z.string().optional(),
  createdAt: z.number(),
  closedAt: z.number().optional(),
});

/** What every version holds: the run's summary, its nodes, events and gates. */
const RunFileBodySchema = RunSummarySchema.extend({
  meta: z.record(z.string(), z.unknown()).optional(),
  nodes: z.array(NodeViewSchema),
  events: z.array(EventLineSchema),
  gates: z.array(RunFileGateSchema),
});

/** A file `arbor runs export` wrote before run files had a format (version 0). */
export const RunFileV0Schema = RunFileBodySchema.extend({
  transcripts: z.record(z.string(), z.array(TranscriptMessageSchema)),
});

/** A run file of version 1 (`arbor.run/1`), its fields in the order the file has them. */
export const RunFileSchema = z
  .object({
    format: z.literal(RUN_FILE_FORMAT),
    /** The arbor that wrote it (`ARBOR_VERSION`). */
    arbor_version: z.string(),
  })
  .extend(RunFileBodySchema.shape)
  .extend({
    /** Each node's transcript by path, reasoning apart (see `RunFileMessageSchema`). */
    transcripts: z.record(z.string(), z.array(RunFileMessageSchema)),
    /** Each node's model calls by path, in order. */
    model_calls: z.record(z.string(), z.array(ModelCallRecordSchema)),
    /** The tools sets the calls offered, by digest (each set once per file). */
    tools: z.record(z.string(), z.array(ToolDefSchema)),
    /**
     * What each node held, by path: its grant, limits and whether it was a warm session — what a
     * replay on another machine starts the root from. Absent from files written before replay.
     */
    authority: z
      .record(
        z.string(),
        z.object({ grant: CaveatsSchema, limits: LimitsSchema, warm: z.boolean() }),
      )
      .optional(),
  });
export type RunFile = z.infer<typeof RunFileSchema>;
