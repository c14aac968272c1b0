import { useState } from 'preact/hooks';
import { postJson, runPath } from './api.js';
import type { Gate, Me, NodeView } from './types.js';

/** The run's questions waiting for a person; an operator answers them here. */
export function Gates(props: { runId: string; gates: Gate[]; me: Me; nodes: NodeView[] }) {
  const [sent, setSent] = useState<ReadonlySet<string>>(new Set());
  const open = props.gates.filter((gate) => !sent.has(gate.gate));
  if (open.length === 0) return null;
  return (
    <section class="gates" aria-label="questions">
      <h2>Waiting for a person</h2>
      {open.map((gate) => (
        <GateForm
          key={gate.gate}
          runId={props.runId}
          gate={gate}
          canAnswer={props.me.can_answer}
          path={props.nodes.find((node) => node.node_id === gate.node_id)?.path}
          onAnswered={() => {
            setSent(new Set([...sent, gate.gate]));
          }}
        />
      ))}
    </section>
  );
}

function GateForm(props: {
  runId: string;
  gate: Gate;
  canAnswer: boolean;
  path: string | undefined;
  onAnswered: () => void;
}) {
  const [answer, setAnswer] = useState('');
  const [problem, setProblem] = useState<string>();
  const choices = Array.isArray(props.gate.payload.choices)
    ? props.gate.payload.choices.map(String)
    : [];
  const send = (text: string): void => {
    postJson(`${runPath(props.runId)}/gates/${encodeURIComponent(props.gate.gate)}`, {
      answer: text,
    }).then(props.onAnswered, (error: unknown) => {
      setProblem(error instanceof Error ? error.message : String(error));
    });
  };
  return (
    <form
      class="gate"
      data-gate={props.gate.gate}
      onSubmit={(event) => {
        event.preventDefault();
        if (answer.trim() !== '') send(answer);
      }}
    >
      <p class="question">
        {props.path === undefined ? null : <span class="path">{props.path}</span>}{' '}
        {props.gate.question}
      </p>
      {typeof props.gate.payload.tool !== 'string' ? null : (
        <pre class="args">
          {props.gate.payload.tool} {JSON.stringify(props.gate.payload.args ?? {}, null, 2)}
        </pre>
      )}
      {props.canAnswer ? (
        <div class="answer">
          {choices.map((choice) => (
            <button
              type="button"
              class="choice"
              onClick={() => {
                send(choice);
              }}
            >
              {choice}
            </button>
          ))}
          <input
            name="answer"
            placeholder="your answer"
            value={answer}
            onInput={(event) => {
              setAnswer(event.currentTarget.value);
            }}
          />
          <button type="submit">Answer</button>
        </div>
      ) : (
        <p class="note">Only an operator can answer.</p>
      )}
      {problem === undefined ? null : <p class="problem">{problem}</p>}
    </form>
  );
}
