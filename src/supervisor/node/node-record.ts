import { redactPayload, type SecretScrubber, type SpawnPayload } from '../../protocol/index.js';
import type { NodeRecord, NodeStatus } from '../../store/store-port.js';
import { scrubMessage, scrubTurn } from './transcript-record.js';
import type { TreeNode } from '../tree.js';

/** A new node's record: its payload redacted and scrubbed, no usage yet. */
export function nodeRecord(
  runId: string,
  node: TreeNode,
  payload: SpawnPayload,
  provider: string,
  status: NodeStatus,
  scrub: SecretScrubber,
): NodeRecord {
  return {
    runId,
    id: node.id,
    ...(node.parentId === undefined ? {} : { parentId: node.parentId }),
    path: node.path,
    depth: node.depth,
    provider,
    instruction: scrub.text(node.instruction),
    status,
    // A replayed node's record (`payload.replay`) is the other run's, not this node's: left out.
    payload: scrubbedPayload(redactPayload(withoutReplay(payload)), scrub),
    attempts: 1,
    createdAt: node.createdAt,
    usage: { input_tokens: 0, output_tokens: 0 },
  };
}

/**
 * A payload's text that a model may have written, scrubbed: the instruction, contract, persona and
 * context a parent gave, a fork's history, a turn's messages. The operator's settings (grant,
 * paths, limits) are left as they are: a path that happens to look like a token must still be the
 * path when the node is resumed from this record.
 */
function scrubbedPayload(payload: SpawnPayload, scrub: SecretScrubber): SpawnPayload {
  return {
    ...payload,
    instruction: scrub.text(payload.instruction),
    ...(payload.output_contract === undefined
      ? {}
      : { output_contract: scrub.text(payload.output_contract) }),
    ...(payload.persona === undefined ? {} : { persona: scrub.text(payload.persona) }),
    context_seed: scrub.deep(payload.context_seed),
    history: payload.history.map((message) => scrubMessage(message, scrub)),
    ...(payload.resume === undefined
      ? {}
      : {
          resume: {
            ...payload.resume,
            transcript: payload.resume.transcript.map((message) => scrubMessage(message, scrub)),
          },
        }),
    ...(payload.turn === undefined ? {} : { turn: scrubTurn(payload.turn, scrub) }),
  };
}

function withoutReplay(payload: SpawnPayload): SpawnPayload {
  if (payload.replay === undefined) return payload;
  const { replay: _replay, ...rest } = payload;
  return rest;
}
