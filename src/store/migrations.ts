/**
 * Schema migrations, applied in order. `PRAGMA user_version` records how many have run, so
 * opening an older file upgrades it and opening a newer one is refused. Never edit a shipped
 * migration: add the next one.
 */
export const MIGRATIONS: readonly string[] = [
  `
  CREATE TABLE runs (
    id          TEXT PRIMARY KEY,
    instruction TEXT NOT NULL,
    status      TEXT NOT NULL,
    created_at  INTEGER NOT NULL,
    ended_at    INTEGER,
    meta        TEXT NOT NULL DEFAULT '{}'
  );
  CREATE TABLE nodes (
    run_id        TEXT NOT NULL REFERENCES runs(id),
    id            TEXT NOT NULL,
    parent_id     TEXT,
    path          TEXT NOT NULL,
    depth         INTEGER NOT NULL,
    provider      TEXT NOT NULL,
    instruction   TEXT NOT NULL,
    status        TEXT NOT NULL,
    payload       TEXT NOT NULL,
    attempts      INTEGER NOT NULL DEFAULT 1,
    created_at    INTEGER NOT NULL,
    started_at    INTEGER,
    ended_at      INTEGER,
    input_tokens  INTEGER NOT NULL DEFAULT 0,
    output_tokens INTEGER NOT NULL DEFAULT 0,
    cost_usd      REAL,
    outcome       TEXT,
    error         TEXT,
    PRIMARY KEY (run_id, id)
  );
  CREATE TABLE events (
    seq     INTEGER PRIMARY KEY AUTOINCREMENT,
    run_id  TEXT NOT NULL,
    node_id TEXT,
    ts      INTEGER NOT NULL,
    kind    TEXT NOT NULL,
    data    TEXT NOT NULL
  );
  CREATE INDEX events_by_run ON events (run_id, seq);
  `,
  `
  CREATE TABLE memory (
    key        TEXT PRIMARY KEY,
    value      TEXT NOT NULL,
    expires_at INTEGER,
    updated_at INTEGER NOT NULL
  );
  CREATE TABLE gates (
    run_id     TEXT NOT NULL,
    id         TEXT NOT NULL,
    node_id    TEXT,
    question   TEXT NOT NULL,
    payload    TEXT NOT NULL,
    status     TEXT NOT NULL,
    answer     TEXT,
    via        TEXT,
    created_at INTEGER NOT NULL,
    closed_at  INTEGER,
    PRIMARY KEY (run_id, id)
  );
  `,
  `
  CREATE TABLE budget_windows (
    key          TEXT NOT NULL,
    period_start INTEGER NOT NULL,
    tokens       INTEGER NOT NULL DEFAULT 0,
    requests     INTEGER NOT NULL DEFAULT 0,
    PRIMARY KEY (key, period_start)
  );
  ALTER TABLE nodes ADD COLUMN subtree_input_tokens INTEGER;
  ALTER TABLE nodes ADD COLUMN subtree_output_tokens INTEGER;
  ALTER TABLE nodes ADD COLUMN subtree_cost_usd REAL;
  `,
  `
  CREATE TABLE transcripts (
    seq     INTEGER PRIMARY KEY AUTOINCREMENT,
    run_id  TEXT NOT NULL,
    node_id TEXT NOT NULL,
    ts      INTEGER NOT NULL,
    entry   TEXT NOT NULL
  );
  CREATE INDEX transcripts_by_node ON transcripts (run_id, node_id, seq);
  ALTER TABLE runs ADD COLUMN owner TEXT;
  ALTER TABLE runs ADD COLUMN lease_until INTEGER;
  ALTER TABLE runs ADD COLUMN lease_renewed_at INTEGER;
  ALTER TABLE runs ADD COLUMN active_ms INTEGER NOT NULL DEFAULT 0;
  `,
  `
  CREATE TABLE a2a_tasks (
    id         TEXT PRIMARY KEY,
    context_id TEXT NOT NULL,
    run_id     TEXT,
    owner      TEXT NOT NULL,
    state      INTEGER NOT NULL,
    task       TEXT NOT NULL,
    tokens     INTEGER NOT NULL DEFAULT 0,
    created_at INTEGER NOT NULL,
    updated_at INTEGER NOT NULL
  );
  CREATE INDEX a2a_tasks_by_owner ON a2a_tasks (owner, created_at);
  CREATE INDEX a2a_tasks_by_update ON a2a_tasks (updated_at, id);
  CREATE TABLE serve_schedules (
    id          TEXT PRIMARY KEY,
    kind        TEXT NOT NULL,
    instruction TEXT NOT NULL,
    owner       TEXT NOT NULL,
    next_at     INTEGER,
    every_ms    INTEGER,
    remaining   INTEGER,
    server      TEXT,
    uri         TEXT,
    source      TEXT,
    created_at  INTEGER NOT NULL
  );
  CREATE TABLE a2a_push (
    task_id TEXT NOT NULL,
    id      TEXT NOT NULL,
    config  TEXT NOT NULL,
    PRIMARY KEY (task_id, id)
  );
  `,
  `
  CREATE INDEX a2a_tasks_by_run ON a2a_tasks (run_id);
  `,
  // Cache reads and writes and reasoning tokens, split out of the totals; NULL where no call of
  // the node reported one (and in every row written before them).
  `
  ALTER TABLE nodes ADD COLUMN cache_read_tokens INTEGER;
  ALTER TABLE nodes ADD COLUMN cache_write_tokens INTEGER;
  ALTER TABLE nodes ADD COLUMN cache_write_1h_tokens INTEGER;
  ALTER TABLE nodes ADD COLUMN reasoning_tokens INTEGER;
  ALTER TABLE nodes ADD COLUMN subtree_cache_read_tokens INTEGER;
  ALTER TABLE nodes ADD COLUMN subtree_cache_write_tokens INTEGER;
  ALTER TABLE nodes ADD COLUMN subtree_cache_write_1h_tokens INTEGER;
  ALTER TABLE nodes ADD COLUMN subtree_reasoning_tokens INTEGER;
  `,
  // The tasks `arbor mcp` answers for (MCP's tasks utility): kept so a task and its result
  // outlive the server that ran it.
  `
  CREATE TABLE mcp_tasks (
    id             TEXT PRIMARY KEY,
    session        TEXT,
    status         TEXT NOT NULL,
    status_message TEXT,
    ttl_ms         INTEGER,
    poll_ms        INTEGER NOT NULL,
    tool           TEXT NOT NULL,
    run_id         TEXT,
    result         TEXT,
    created_at     INTEGER NOT NULL,
    updated_at     INTEGER NOT NULL
  );
  CREATE INDEX mcp_tasks_by_creation ON mcp_tasks (created_at, id);
  `,
];
