import { useState } from 'preact/hooks';

/**
 * "fork from here" on one model call of a node, for operators: it shows the `arbor replay` command
 * that forks the run live from that call (the dashboard starts nothing itself). The page does not
 * know where the store is, so the command has no `--db` (`arbor replay` reads ARBOR_DB, else
 * `.arbor/arbor.db`).
 */
export function ForkFromHere(props: { runId: string; path: string; step: number }) {
  const [open, setOpen] = useState(false);
  const command = forkCommand(props.runId, props.path, props.step);
  return (
    <div class="fork" data-step={props.step}>
      <button
        type="button"
        class="link fork-button"
        aria-expanded={open}
        title={`Fork the run live from model call ${String(props.step)} of node ${props.path}`}
        onClick={() => {
          setOpen(!open);
        }}
      >
        fork from here
      </button>
      {open ? (
        <div class="fork-run">
          <code class="fork-command">{command}</code>
          <CopyButton text={command} />
        </div>
      ) : null}
    </div>
  );
}

/** `arbor replay RUN --from PATH@STEP`, the run id quoted for a shell when it needs it. */
function forkCommand(runId: string, path: string, step: number): string {
  return `arbor replay ${shellWord(runId)} --from ${path}@${String(step)}`;
}

function shellWord(word: string): string {
  return /^[\w.:@%+=,/-]+$/.test(word) ? word : `'${word.replaceAll("'", `'\\''`)}'`;
}

/** Copies to the clipboard where the page may (a secure context); the command stays selectable. */
function CopyButton(props: { text: string }) {
  const [copied, setCopied] = useState(false);
  if (typeof navigator.clipboard === 'undefined') return null;
  return (
    <button
      type="button"
      class="link"
      onClick={() => {
        navigator.clipboard.writeText(props.text).then(
          () => {
            setCopied(true);
          },
          () => {
            setCopied(false);
          },
        );
      }}
    >
      {copied ? 'copied' : 'copy'}
    </button>
  );
}
