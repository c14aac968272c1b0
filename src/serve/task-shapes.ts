import { randomUUID } from 'node:crypto';
import { Role, TaskState, type Artifact, type Message, type Part, type Task } from '@a2a-js/sdk';
import {
  usageToMetadata,
  type CamelUsage,
  type TerminalStatus,
  type Usage,
} from '../protocol/index.js';

/** The A2A task states that end a task. */
const FINAL_STATES: readonly TaskState[] = [
  TaskState.TASK_STATE_COMPLETED,
  TaskState.TASK_STATE_FAILED,
  TaskState.TASK_STATE_CANCELED,
  TaskState.TASK_STATE_REJECTED,
];

/** States a restarted server takes up again (the run was under way). */
export const LIVE_STATES: readonly TaskState[] = [
  TaskState.TASK_STATE_SUBMITTED,
  TaskState.TASK_STATE_WORKING,
  TaskState.TASK_STATE_INPUT_REQUIRED,
];

export function isFinal(state: TaskState | undefined): boolean {
  return state !== undefined && FINAL_STATES.includes(state);
}

/** How a run's status reads as a task state: completed, refused and cancelled map; any other end is FAILED. */
export function stateOfStatus(status: TerminalStatus | 'running' | 'interrupted'): TaskState {
  return STATE_OF_STATUS[status] ?? TaskState.TASK_STATE_FAILED;
}

const STATE_OF_STATUS: Partial<Record<TerminalStatus | 'running' | 'interrupted', TaskState>> = {
  completed: TaskState.TASK_STATE_COMPLETED,
  refused: TaskState.TASK_STATE_REJECTED,
  cancelled: TaskState.TASK_STATE_CANCELED,
  running: TaskState.TASK_STATE_WORKING,
  interrupted: TaskState.TASK_STATE_WORKING,
};

/** A text part. */
export function textPart(text: string): Part {
  return {
    content: { $case: 'text', value: text },
    metadata: undefined,
    filename: '',
    mediaType: 'text/plain',
  };
}

/** A structured part (a JSON value). */
function dataPart(value: unknown): Part {
  return {
    content: { $case: 'data', value },
    metadata: undefined,
    filename: '',
    mediaType: 'application/json',
  };
}

/** A message from this agent on a task. */
export function agentMessage(
  task: Pick<Task, 'id' | 'contextId'>,
  parts: Part[],
  metadata?: Record<string, unknown>,
): Message {
  return {
    messageId: randomUUID(),
    contextId: task.contextId,
    taskId: task.id,
    role: Role.ROLE_AGENT,
    parts,
    metadata,
    extensions: [],
    referenceTaskIds: [],
  };
}

/** The artifact of a finished run: its answer, as text or as the structured value it is. */
export function answerArtifact(text: string, structured: unknown): Artifact {
  return {
    artifactId: 'answer',
    name: 'answer',
    description: "The root agent's answer",
    parts: structured === undefined ? [textPart(text)] : [dataPart(structured)],
    metadata: undefined,
    extensions: [],
  };
}

/**
 * Usage as task metadata (`arbor/usage`), in A2A's JSON casing (camelCase), as all of it is: the
 * totals, the cache and reasoning splits where reported, the cost where known.
 */
export function usageMetadata(usage: Usage): CamelUsage {
  return usageToMetadata(usage);
}

/** A new task, submitted. */
export function newTask(
  id: string,
  contextId: string,
  message: Message,
  metadata: Record<string, unknown>,
): Task {
  return {
    id,
    contextId,
    status: {
      state: TaskState.TASK_STATE_SUBMITTED,
      message: undefined,
      timestamp: new Date().toISOString(),
    },
    artifacts: [],
    history: [message],
    metadata,
  };
}
