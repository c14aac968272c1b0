import type { ComponentChildren } from 'preact';
import { useEffect, useRef, useState } from 'preact/hooks';
import { getJson, runPath } from './api.js';
import { ForkFromHere } from './fork-command.js';
import { cost, duration, splits, tokens } from './format.js';
import type { NodeDetail, TranscriptMessage } from './types.js';

/**
 * A node: its instruction, grant, usage, transcript (tool calls and results) and events. An
 * operator (`canFork`) is offered, on each model answer, the command that forks the run from it.
 */
export function NodePanel(props: {
  runId: string;
  nodeId: string;
  version: string;
  canFork: boolean;
}) {
  const [loaded, setNode] = useState<NodeDetail>();
  // What was loaded for another node is not shown for this one.
  const node = loaded?.node_id === props.nodeId ? loaded : undefined;
  const [problem, setProblem] = useState<string>();
  const panel = useRef<HTMLElement>(null);
  // A node chosen far down the timeline is brought into view.
  useEffect(() => {
    panel.current?.scrollIntoView({ block: 'nearest' });
  }, [props.nodeId, node === undefined]);
  useEffect(() => {
    let stopped = false;
    getJson<NodeDetail>(`${runPath(props.runId)}/nodes/${encodeURIComponent(props.nodeId)}`).then(
      (detail) => {
        if (!stopped) {
          setNode(detail);
          setProblem(undefined);
        }
      },
      (error: unknown) => {
        if (!stopped) setProblem(error instanceof Error ? error.message : String(error));
      },
    );
    return () => {
      stopped = true;
    };
  }, [props.runId, props.nodeId, props.version]);

  if (node === undefined)
    return (
      <section class="node-panel" ref={panel}>
        {problem ?? 'Loading the node…'}
      </section>
    );
  let step = 0;
  return (
    <section class="node-panel" aria-label="node" data-node={node.node_id} ref={panel}>
      <h2>
        {node.path} <span class={`status ${node.status}`}>{node.status}</span>
      </h2>
      <p class="instruction">{node.instruction}</p>
      <dl class="facts">
        <dt>node</dt>
        <dd>{node.node_id}</dd>
        <dt>provider</dt>
        <dd>{node.provider}</dd>
        <dt>duration</dt>
        <dd>{duration(node.duration_ms)}</dd>
        {node.parked_since === undefined ? null : (
          <>
            <dt>parked since</dt>
            <dd title="waiting with no process; woken when what it waits for arrives">
              {new Date(node.parked_since).toLocaleString()}
            </dd>
          </>
        )}
        <dt>own usage</dt>
        <dd>
          {tokens(node.usage)} tokens{splits(node.usage)}, {cost(node.usage.cost_usd)}
        </dd>
        <dt>subtree</dt>
        <dd>
          {tokens(node.subtree_usage)} tokens{splits(node.subtree_usage)},{' '}
          {cost(node.subtree_usage.cost_usd)}
        </dd>
        {node.reason === undefined ? null : (
          <>
            <dt>reason</dt>
            <dd>{node.reason}</dd>
          </>
        )}
      </dl>
      <details>
        <summary>grant</summary>
        <pre class="grant">{JSON.stringify(node.grant, null, 2)}</pre>
      </details>
      <h3>Transcript</h3>
      <ol class="transcript">
        {node.messages.length === 0 ? <li class="msg empty">(no messages yet)</li> : null}
        {node.messages.map((message) => {
          // Each assistant message is one model call: the Nth is step N of `arbor replay --from`.
          if (message.role === 'assistant') step += 1;
          return (
            <Message
              message={message}
              fork={
                props.canFork && message.role === 'assistant' ? (
                  <ForkFromHere
                    key={`${node.node_id}@${String(step)}`}
                    runId={props.runId}
                    path={node.path}
                    step={step}
                  />
                ) : null
              }
            />
          );
        })}
      </ol>
      <details>
        <summary>events ({node.events.length})</summary>
        <ol class="events">
          {node.events.map((event) => {
            const {
              seq,
              ts,
              run_id: _run,
              node_id: _node,
              path: _path,
              event: name,
              ...rest
            } = event;
            return (
              <li key={seq}>
                <span class="ts">{ts.slice(11, 23)}</span> <b>{name}</b>{' '}
                <code>{JSON.stringify(rest)}</code>
              </li>
            );
          })}
        </ol>
      </details>
    </section>
  );
}

function Message(props: { message: TranscriptMessage; fork: ComponentChildren }) {
  const m = props.message;
  switch (m.role) {
    case 'system':
      return (
        <li class="msg system">
          <b>system</b> <Text text={m.text} />
        </li>
      );
    case 'user':
      return (
        <li class="msg user">
          <b>user{m.principal === undefined ? '' : ` ${m.principal}`}</b> <Text text={m.text} />
        </li>
      );
    case 'assistant':
      return (
        <li class="msg assistant">
          <b>assistant</b> {m.text === undefined ? null : <Text text={m.text} />}
          {m.tool_calls.map((call) => (
            <div class="call">
              → <code>{call.name}</code> <pre>{JSON.stringify(call.args, null, 2)}</pre>
            </div>
          ))}
          {props.fork}
        </li>
      );
    case 'tool':
      return (
        <li class={`msg tool${m.is_error ? ' error' : ''}`}>
          <b>
            {m.name} {m.is_error ? 'error' : 'result'}
          </b>
          <pre>
            {typeof m.content === 'string' ? m.content : JSON.stringify(m.content, null, 2)}
          </pre>
        </li>
      );
    case 'note':
      return (
        <li class="msg note">
          <b>note</b> <Text text={m.text} />
        </li>
      );
  }
}

function Text(props: { text: string }) {
  return <span class="text">{props.text}</span>;
}
