import { render } from 'preact';
import { useEffect, useState } from 'preact/hooks';
import { getJson, HttpError, postJson } from './api.js';
import { RunPage } from './run-page.js';
import { RunsPage } from './runs-page.js';
import { SignIn } from './sign-in.js';
import type { Me } from './types.js';

/** The page's place: `#/` the runs, `#/runs/ID` a run, `#/runs/ID/NODE` a run with a node open. */
function useRoute(): string[] {
  const read = (): string[] =>
    location.hash.startsWith('#/')
      ? location.hash.slice(2).split('/').filter(Boolean).map(decodeURIComponent)
      : [];
  const [route, setRoute] = useState(read);
  useEffect(() => {
    const onHash = (): void => {
      setRoute(read());
    };
    addEventListener('hashchange', onHash);
    return () => {
      removeEventListener('hashchange', onHash);
    };
  }, []);
  return route;
}

function App() {
  const [me, setMe] = useState<Me | null | undefined>(undefined);
  const [problem, setProblem] = useState<string>();
  const route = useRoute();

  useEffect(() => {
    // `arbor ui` prints a URL whose fragment holds a one-time token: sign in with it, then forget it.
    const token = /^#token=([^&]+)/.exec(location.hash)?.[1];
    const signIn =
      token === undefined
        ? Promise.resolve()
        : postJson('/ui/session', { token: decodeURIComponent(token) })
            .catch((error: unknown) => {
              setProblem(error instanceof Error ? error.message : String(error));
            })
            .finally(() => {
              history.replaceState(null, '', `${location.pathname}#/`);
            });
    void signIn.then(() =>
      getJson<Me>('/ui/api/me').then(setMe, (error: unknown) => {
        if (error instanceof HttpError && error.status === 401) setMe(null);
        else setProblem(String(error));
      }),
    );
  }, []);

  if (me === undefined) return <p class="loading">{problem ?? 'Loading…'}</p>;
  if (me === null) return <SignIn onSignedIn={setMe} problem={problem} />;
  const [section, runId, node] = route;
  return (
    <div class="shell">
      <header class="top">
        <a href="#/" class="brand">
          arbor
        </a>
        <span class="where">{me.title ?? ''}</span>
        <span class="who">
          {me.name} ({me.role})
        </span>
        <button
          class="link"
          onClick={() => {
            void postJson('/ui/session/end', {}).then(() => {
              setMe(null);
            });
          }}
        >
          sign out
        </button>
      </header>
      {section === 'runs' && runId !== undefined ? (
        <RunPage runId={runId} node={node} me={me} />
      ) : (
        <RunsPage />
      )}
    </div>
  );
}

const root = document.getElementById('app');
if (root !== null) {
  root.textContent = '';
  render(<App />, root);
}
