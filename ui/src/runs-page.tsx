import { useEffect, useState } from 'preact/hooks';
import { getJson } from './api.js';
import { cost, duration, oneLine, splits, tokens, when } from './format.js';
import type { RunSummary } from './types.js';

const STATUSES = ['running', 'completed', 'failed', 'refused', 'cancelled', 'interrupted'];
/** How often the list is read again while the page is shown. */
const REFRESH_MS = 3000;

/** The runs of the store, newest first: filter by status, search instructions and ids. */
export function RunsPage() {
  const [status, setStatus] = useState('');
  const [search, setSearch] = useState('');
  const [runs, setRuns] = useState<RunSummary[]>();
  const [problem, setProblem] = useState<string>();

  useEffect(() => {
    let stopped = false;
    const query = new URLSearchParams({
      ...(status === '' ? {} : { status }),
      ...(search.trim() === '' ? {} : { q: search.trim() }),
      limit: '200',
    });
    const load = (): void => {
      getJson<{ runs: RunSummary[] }>(`/ui/api/runs?${query.toString()}`).then(
        (body) => {
          if (!stopped) {
            setRuns(body.runs);
            setProblem(undefined);
          }
        },
        (error: unknown) => {
          if (!stopped) setProblem(String(error));
        },
      );
    };
    // Typing in the search box reads the list once it pauses.
    const first = setTimeout(load, search === '' ? 0 : 250);
    const timer = setInterval(() => {
      if (document.visibilityState === 'visible') load();
    }, REFRESH_MS);
    return () => {
      stopped = true;
      clearTimeout(first);
      clearInterval(timer);
    };
  }, [status, search]);

  return (
    <main class="runs">
      <div class="filters">
        <select
          name="status"
          value={status}
          onChange={(event) => {
            setStatus(event.currentTarget.value);
          }}
        >
          <option value="">every status</option>
          {STATUSES.map((s) => (
            <option value={s}>{s}</option>
          ))}
        </select>
        <input
          type="search"
          name="search"
          placeholder="search instructions and run ids"
          value={search}
          onInput={(event) => {
            setSearch(event.currentTarget.value);
          }}
        />
      </div>
      {problem === undefined ? null : <p class="problem">{problem}</p>}
      {runs === undefined ? (
        <p class="loading">Loading runs…</p>
      ) : runs.length === 0 ? (
        <p class="empty">No runs.</p>
      ) : (
        <table class="runs-table">
          <thead>
            <tr>
              <th>status</th>
              <th>instruction</th>
              <th>started</th>
              <th>duration</th>
              <th>nodes</th>
              <th>tokens</th>
              <th>cost</th>
            </tr>
          </thead>
          <tbody>
            {runs.map((run) => (
              <tr key={run.run_id} class="run-row" data-run={run.run_id}>
                <td>
                  <span class={`status ${run.status}`}>{run.status}</span>
                </td>
                <td>
                  <a href={`#/runs/${encodeURIComponent(run.run_id)}`} title={run.run_id}>
                    {oneLine(run.instruction, 100)}
                  </a>
                </td>
                <td>{when(run.created_at)}</td>
                <td>{duration(run.duration_ms)}</td>
                <td>{run.nodes}</td>
                <td>
                  {tokens(run)}
                  {splits(run)}
                </td>
                <td>{cost(run.cost_usd)}</td>
              </tr>
            ))}
          </tbody>
        </table>
      )}
    </main>
  );
}
