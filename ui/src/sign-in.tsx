import { useState } from 'preact/hooks';
import { postJson } from './api.js';
import type { Me } from './types.js';

/** Signs in with a token: a principal's of `arbor serve`, or the one `arbor ui` printed. */
export function SignIn(props: { onSignedIn: (me: Me) => void; problem?: string | undefined }) {
  const [token, setToken] = useState('');
  const [problem, setProblem] = useState(props.problem);
  return (
    <form
      class="sign-in"
      onSubmit={(event) => {
        event.preventDefault();
        postJson<Me>('/ui/session', { token }).then(props.onSignedIn, (error: unknown) => {
          setProblem(error instanceof Error ? error.message : String(error));
        });
      }}
    >
      <h1>arbor</h1>
      <p>
        Sign in with your token (a principal's token, or the one `arbor serve` printed at start).
      </p>
      <input
        type="password"
        name="token"
        autocomplete="current-password"
        placeholder="token"
        value={token}
        onInput={(event) => {
          setToken(event.currentTarget.value);
        }}
      />
      <button type="submit">Sign in</button>
      {problem === undefined ? null : <p class="problem">{problem}</p>}
    </form>
  );
}
