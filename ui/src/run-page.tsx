import { useEffect, useReducer, useRef, useState } from 'preact/hooks';
import { getJson, runPath } from './api.js';
import { cost, duration, splits, tokens } from './format.js';
import { Gates } from './gates.js';
import { NodePanel } from './node-panel.js';
import { RunModel } from './run-model.js';
import { Timeline } from './timeline.js';
import { Tree } from './tree.js';
import type { Me, RunDetail, WireEvent } from './types.js';

/** How long after a spawn, an end or a gate the run's detail is read again (one read per burst). */
const REFRESH_MS = 300;

/**
 * One run: its tree and timeline, live while it runs (its events arrive as server-sent events and
 * are drawn at most once a frame), its open questions, and a node's detail when one is chosen.
 */
export function RunPage(props: { runId: string; node: string | undefined; me: Me }) {
  const model = useRef<RunModel>();
  const [, redraw] = useReducer((n: number) => n + 1, 0);
  const [problem, setProblem] = useState<string>();
  const [live, setLive] = useState(false);
  const path = runPath(props.runId);

  useEffect(() => {
    model.current = undefined;
    let stopped = false;
    let frame = 0;
    let refreshTimer: ReturnType<typeof setTimeout> | undefined;
    let source: EventSource | undefined;
    const draw = (): void => {
      if (frame === 0)
        frame = requestAnimationFrame(() => {
          frame = 0;
          redraw(0);
        });
    };
    const refresh = (): void => {
      refreshTimer ??= setTimeout(() => {
        refreshTimer = undefined;
        getJson<RunDetail>(path).then((detail) => {
          if (stopped) return;
          model.current?.refresh(detail);
          draw();
        }, setError);
      }, REFRESH_MS);
    };
    const setError = (error: unknown): void => {
      if (!stopped) setProblem(error instanceof Error ? error.message : String(error));
    };
    getJson<RunDetail>(path).then((detail) => {
      if (stopped) return;
      model.current = new RunModel(detail);
      draw();
      source = new EventSource(`${path}/stream`);
      source.addEventListener('open', () => {
        setLive(true);
      });
      source.addEventListener('arbor', (message) => {
        const event = JSON.parse((message as MessageEvent<string>).data) as WireEvent;
        if (model.current?.apply(event) === true) refresh();
        draw();
      });
      source.addEventListener('end', () => {
        source?.close();
        setLive(false);
        refresh();
      });
      source.addEventListener('error', () => {
        // EventSource reconnects by itself, from the last id it saw.
        setLive(false);
      });
    }, setError);
    // While the run goes on, its bars grow with the clock.
    const tick = setInterval(() => {
      if (model.current?.ended === false) draw();
    }, 1000);
    return () => {
      stopped = true;
      source?.close();
      clearInterval(tick);
      clearTimeout(refreshTimer);
      cancelAnimationFrame(frame);
    };
  }, [path]);

  const run = model.current;
  if (run === undefined) return <p class="loading">{problem ?? 'Loading the run…'}</p>;
  const detail = run.detail;
  const select = (nodeId: string): void => {
    location.hash = `#/runs/${encodeURIComponent(props.runId)}/${encodeURIComponent(nodeId)}`;
  };
  return (
    <main class="run">
      <section class="run-head">
        <h1 class="instruction">{detail.instruction}</h1>
        <div class="facts">
          <span class={`status ${detail.status}`}>{detail.status}</span>
          {live ? <span class="live">live</span> : null}
          <span>run {detail.run_id}</span>
          <span>{detail.nodes.length} nodes</span>
          <span>{duration(run.end - run.start)}</span>
          <span>
            {tokens(detail)} tokens{splits(detail)}
          </span>
          <span>{cost(detail.cost_usd)}</span>
          {detail.trace_id === undefined ? null : detail.trace_url === undefined ? (
            <span class="trace">trace {detail.trace_id}</span>
          ) : (
            <a class="trace" href={detail.trace_url} target="_blank" rel="noopener noreferrer">
              trace {detail.trace_id}
            </a>
          )}
        </div>
        {problem === undefined ? null : <p class="problem">{problem}</p>}
      </section>
      <Gates runId={props.runId} gates={detail.gates} me={props.me} nodes={detail.nodes} />
      <div class="panes">
        <Tree nodes={run.nodes} selected={props.node} onSelect={select} />
        {props.node === undefined ? null : (
          <NodePanel
            runId={props.runId}
            nodeId={props.node}
            version={`${run.lanes.get(props.node)?.status ?? ''}/${String(run.lastSeq > 0)}`}
            canFork={props.me.role === 'operator'}
          />
        )}
      </div>
      <Timeline model={run} selected={props.node} onSelect={select} />
    </main>
  );
}
