import { useEffect, useRef, useState } from 'preact/hooks';
import { duration } from './format.js';
import type { Lane, RunModel, Total } from './run-model.js';

const LABEL_W = 120;
const ROW_H = 16;
const AXIS_H = 20;
const CHART_H = 70;
const PAD = 8;

/**
 * The run over time: one bar per node from its spawn to its end, marked where it waited on the
 * model, ran tools, waited on a gate or on a spawn slot; below it the tokens and cost so far.
 * One SVG, so a tree of hundreds of nodes is drawn in one go.
 */
export function Timeline(props: {
  model: RunModel;
  selected: string | undefined;
  onSelect: (nodeId: string) => void;
}) {
  const box = useRef<HTMLDivElement>(null);
  const [width, setWidth] = useState(960);
  useEffect(() => {
    const element = box.current;
    if (element === null) return undefined;
    const observer = new ResizeObserver(() => {
      // The box's padding is inside its client width.
      setWidth(Math.max(480, element.clientWidth - 2 * PAD - 2));
    });
    observer.observe(element);
    return () => {
      observer.disconnect();
    };
  }, []);

  const { model } = props;
  const start = model.start;
  const end = Math.max(model.end, start + 1);
  const span = end - start;
  const plot = width - LABEL_W - PAD;
  const x = (t: number): number =>
    LABEL_W + ((Math.min(Math.max(t, start), end) - start) / span) * plot;
  const lanes = model.orderedLanes;
  const height = AXIS_H + lanes.length * ROW_H + PAD;
  return (
    <section class="timeline" aria-label="timeline" ref={box}>
      <h2>Timeline</h2>
      <p class="legend">
        <span class="key model">model</span> <span class="key tool">tools</span>{' '}
        <span class="key gate">gate</span> <span class="key wait">waiting</span>
      </p>
      <div class="lanes-box">
        <svg class="lanes" width={width} height={height} role="img" aria-label="one bar per node">
          <Axis start={start} span={span} x={x} />
          {lanes.map((lane, row) => (
            <LaneRow
              key={lane.nodeId}
              lane={lane}
              y={AXIS_H + row * ROW_H}
              x={x}
              now={end}
              width={width}
              selected={lane.nodeId === props.selected}
              onSelect={props.onSelect}
            />
          ))}
        </svg>
      </div>
      <Totals
        totals={model.totals}
        start={start}
        x={x}
        width={width}
        cost={model.detail.cost_usd}
      />
    </section>
  );
}

function Axis(props: { start: number; span: number; x: (t: number) => number }) {
  const ticks = [0, 0.25, 0.5, 0.75, 1].map((f) => props.start + f * props.span);
  return (
    <g class="axis">
      {ticks.map((t, i) => (
        <text
          key={i}
          x={props.x(t)}
          y={12}
          text-anchor={i === 0 ? 'start' : i === 4 ? 'end' : 'middle'}
        >
          {duration(t - props.start)}
        </text>
      ))}
    </g>
  );
}

function LaneRow(props: {
  lane: Lane;
  y: number;
  x: (t: number) => number;
  now: number;
  width: number;
  selected: boolean;
  onSelect: (nodeId: string) => void;
}) {
  const { lane, x } = props;
  const left = x(lane.start);
  const right = Math.max(left + 2, x(lane.end ?? props.now));
  return (
    <g
      class={`lane${props.selected ? ' selected' : ''}`}
      data-node={lane.nodeId}
      data-path={lane.path}
      transform={`translate(0 ${props.y})`}
      onClick={() => {
        props.onSelect(lane.nodeId);
      }}
    >
      <title>
        {lane.path} {lane.status} {duration((lane.end ?? props.now) - lane.start)}
      </title>
      <rect class="hit" x={0} y={0} width={props.width} height={ROW_H} />
      <text class="label" x={4} y={ROW_H - 4}>
        {lane.path}
      </text>
      <rect class={`bar ${lane.status}`} x={left} y={2} width={right - left} height={ROW_H - 4} />
      {lane.segments.map((segment, i) => {
        const from = x(segment.start);
        const to = Math.max(from + 1, x(segment.end ?? props.now));
        return (
          <rect
            key={i}
            class={`seg ${segment.kind}`}
            x={from}
            y={4}
            width={to - from}
            height={ROW_H - 8}
          >
            <title>
              {segment.kind}: {segment.label} (
              {duration((segment.end ?? props.now) - segment.start)})
            </title>
          </rect>
        );
      })}
    </g>
  );
}

/** Tokens of the model calls so far, as a line under the bars, with the run's cost. */
function Totals(props: {
  totals: Total[];
  start: number;
  x: (t: number) => number;
  width: number;
  cost: number | undefined;
}) {
  const last = props.totals.at(-1);
  if (last === undefined) return <p class="totals empty">No model calls yet.</p>;
  const max = Math.max(1, last.tokens);
  const y = (tokens: number): number => CHART_H - 4 - (tokens / max) * (CHART_H - 12);
  const points = [
    `${props.x(props.start)},${y(0)}`,
    ...props.totals.map((total) => `${props.x(total.at)},${y(total.tokens)}`),
  ].join(' ');
  return (
    <svg
      class="totals"
      width={props.width}
      height={CHART_H}
      role="img"
      aria-label="tokens over time"
    >
      <text x={4} y={14}>
        tokens
      </text>
      <text x={4} y={30} class="figure">
        {last.tokens.toLocaleString()}
      </text>
      <text x={4} y={46} class="figure">
        {props.cost === undefined ? '' : `$${props.cost.toFixed(4)}`}
      </text>
      <polyline class="line" points={points} />
    </svg>
  );
}
