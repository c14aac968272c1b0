import { DEFAULT_LIMITS } from '../protocol/index.js';

/** The flags of `arbor run`, in `node:util` `parseArgs` form. */
export const RUN_OPTIONS = {
  intel: { type: 'string' },
  dialect: { type: 'string' },
  model: { type: 'string' },
  'max-steps': { type: 'string' },
  'max-tokens': { type: 'string' },
  'budget-usd': { type: 'string' },
  deadline: { type: 'string' },
  'max-depth': { type: 'string' },
  provider: { type: 'string' },
  redis: { type: 'string' },
  pool: { type: 'string' },
  config: { type: 'string' },
  db: { type: 'string' },
  json: { type: 'boolean' },
  events: { type: 'string' },
  warm: { type: 'boolean' },
  'mock-llm': { type: 'string' },
  'ask-fallback': { type: 'string' },
  'fs-read': { type: 'string' },
  'fs-write': { type: 'string' },
  exec: { type: 'string' },
  net: { type: 'string' },
  mcp: { type: 'string', multiple: true },
  'mcp-tags': { type: 'string', multiple: true },
  'allow-trifecta': { type: 'boolean' },
  sandbox: { type: 'string' },
  'sandbox-network': { type: 'string' },
  resume: { type: 'string' },
  help: { type: 'boolean', short: 'h' },
} as const;

/** The parsed flags of `arbor run` and `arbor resume`. */
export type RunValues = Partial<{
  [K in keyof typeof RUN_OPTIONS]: (typeof RUN_OPTIONS)[K] extends { multiple: true }
    ? string[]
    : (typeof RUN_OPTIONS)[K]['type'] extends 'boolean'
      ? boolean
      : string;
}>;

export const RUN_HELP = `Usage: arbor run [options] <instruction>

Runs one root agent in its own process and prints its result on stdout (streamed as it is written
when stdout is a terminal). Progress goes to stderr: a live tree on a terminal, NDJSON events
otherwise (--events). The run id is printed on stderr.

Model:
  --intel URL[,URL...]     endpoint list, failed over in order (env ARBOR_INTEL)
  --dialect openai|anthropic|openai-responses
                           wire dialect of the endpoints (default openai; env ARBOR_DIALECT)
  --model NAME             model name (env ARBOR_MODEL)
  --mock-llm PLAYBOOK      run against arbor's scripted model instead (no real LLM, no key)
  Credentials come from ARBOR_API_KEY, or OPENAI_API_KEY / ANTHROPIC_API_KEY by dialect.

Limits:
  --max-steps N            model calls the root may make (default ${DEFAULT_LIMITS.maxSteps})
  --max-tokens N           tokens the whole tree may use (the ceiling; children get shares)
  --budget-usd X           money the whole tree may spend (default price table, or intelligence.prices)
  --deadline DURATION      wall-clock limit, e.g. 500ms, 30s, 5m, 1h, 7d (at most 24d)
  --max-depth N            levels of delegation allowed below the root (default ${DEFAULT_LIMITS.maxDepth})

Authority (the run's grant; every agent holds at most this; all, none, or a comma list):
  --fs-read PATHS          readable paths (default: the working directory)
  --fs-write PATHS         writable paths (default: the working directory)
  --exec COMMANDS          commands that may run, matched exactly (default: all)
  --net HOSTS              hosts http.fetch and commands may reach: names, host:port,
                           *.suffix (default: all public hosts); none for no network.
                           Commands go through arbor's egress proxy (HTTP_PROXY is set);
                           each host:port entry is also a raw TCP forward
  --sandbox auto|required|off  run commands in a bubblewrap sandbox of the grant: where it
                           works (auto, the default), or refuse to start without it
                           (required); off runs them unsandboxed (env ARBOR_SANDBOX)
  --sandbox-network proxy|host  host: commands of agents holding net all share this
                           machine's network, loopback and private ranges included
                           (the opt-out from the proxy; warned at start)

Tools:
  --mcp NAME=COMMAND       an MCP server over stdio (repeatable), or --mcp NAME=URL over HTTP
  --mcp-tags NAME=TAGS     trifecta tags of a server: untrusted_input,sensitive,egress
  --allow-trifecta         let one agent hold untrusted input, sensitive data and egress
  Policy rules that gate tool calls come from [[security.policy]] in --config.

Run:
  --warm                   keep the session open: each stdin line is the next message, one
                           answer per line on stdout; end of input closes the session
  --provider process|queue how agents run: local processes (default), or processes on fleet
                           workers (\`arbor worker\`) through BullMQ on Redis (env ARBOR_PROVIDER)
  --redis URL              the fleet's Redis, without a password (that goes in ARBOR_REDIS_URL
                           or [queue] redis = "env:NAME"); the supervisor's private key is
                           ARBOR_FLEET_PRIVATE_KEY_FILE or [queue] key, the workers it admits
                           [[queue.admit]] (\`arbor worker keygen\`; docs/scale-out.md)
  --pool N                 keep up to N process children loaded and waiting, as many as were
                           asked for in the last 30 s: a delegation then skips the child's
                           start (each waiting child holds ~65 MB; default 0; env ARBOR_POOL;
                           [agent] pool)
  --config FILE            TOML config (precedence: defaults < file < env < flags)
  --db PATH                the run store (default .arbor/arbor.db; env ARBOR_DB)
  --json                   print a JSON report instead of the bare result
  --events tree|ndjson|none  what goes to stderr: the live tree, NDJSON events, or nothing
                           (default: tree on a terminal, NDJSON otherwise). On a terminal
                           stdout, the root's answer streams as it is written
  --ask-fallback fail|wait when no terminal can ask a person: fail the question (default), or
                           wait for \`arbor gate answer\` from another shell

Durability: every node's transcript is recorded as it goes. A run whose supervisor died (killed,
crashed, machine lost) is marked interrupted by the next arbor that opens the store;
  --resume RUN             continue an interrupted run (same as \`arbor resume RUN\`): finished
                           nodes keep their results, running ones continue from their transcripts

Signals: SIGINT/SIGTERM drain the tree (a second one forces), SIGUSR1 pauses every agent at its
next step, SIGUSR2 resumes, SIGHUP re-reads --config and hot-swaps the intelligence.

Exit codes: 0 completed, 1 internal error or crash, 2 bad usage or config, 3 stalled or loop
detected, 4 intelligence unavailable, 5 refused, 6 MCP server down, 7 budget or deadline
exhausted, 130 interrupted.
`;
