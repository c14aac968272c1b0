/**
 * What one child may hold open at a time, and how large a field it may send, beyond the frame cap
 * (`MAX_FRAME_BYTES`). A frame past one of these bounds is a protocol violation (`over_bound`):
 * it is not acted on (a request gets a refusal as its answer, so the child does not wait on it),
 * and it counts towards the violation limit like any other. Without them, a child could open
 * thousands of questions to a person, or fill the run's store, long before any other limit
 * noticed.
 */
export const CHILD_BOUNDS = {
  /** `tool_request`s the supervisor has not answered yet. Sub-agents awaited at once count here. */
  pendingToolRequests: 256,
  /** `budget_request`s not answered yet. A child asks once per model call. */
  pendingBudgetRequests: 16,
  /**
   * Questions to a person not closed yet: `ask_human` and egress approvals in flight, and `gate`
   * frames without their `gate_closed`, counted together.
   */
  openGates: 16,
  /** Characters of a question to a person (`ask_human`'s `question`). */
  questionChars: 4_000,
  /** Choices offered with a question, and characters of each. */
  choices: 32,
  choiceChars: 500,
  /** Characters of an `event` frame's name. */
  eventNameChars: 128,
  /**
   * Characters of an `event` frame's `fields`, or a `gate` frame's `payload`, as JSON. A
   * transcript entry past it travels in pieces (`TranscriptPart`), each within it.
   */
  fieldsChars: 256 * 1024,
  /**
   * Characters of one transcript entry put together from its pieces (the whole entry as one
   * frame's JSON line): 32 Mi, as large as the largest model answer arbor reads whole (32 MiB),
   * so an honest model's tool call, however large, is recorded whole and a resume keeps it. The
   * supervisor holds at most one entry in pieces per child, so this also bounds what it buffers.
   */
  transcriptEntryChars: 32 * 1024 * 1024,
} as const;
