import type { SqlDatabase } from './sql-database.js';
import type { TranscriptEntry } from '../protocol/index.js';
import { ownerFromColumn, transcriptEntryFromColumn } from './rows.js';
import { LEASE_MS, whyAbandoned, type RunOwner } from './run-owner.js';

/** A run this store says was abandoned by its supervisor, and why. */
export interface InterruptedRun {
  runId: string;
  reason: string;
}

/** Who holds a run, and until when. */
export interface RunHold {
  owner: RunOwner | undefined;
  leaseUntil: number | undefined;
  /** Milliseconds the run has been active (under any supervisor), as of the last renewal. */
  activeMs: number;
}

/** No other arbor holds a live lease on the (interrupted) run. */
const TAKEABLE = '(lease_until IS NULL OR lease_until <= @now OR owner = @owner)';

const ACTIVE_NODE_STATUSES = "('pending', 'spawning', 'running', 'paused', 'parked')";

/**
 * What makes a run durable, on the run store's database: every node's transcript, appended as it
 * changes, and who owns each run with the lease it renews.
 */
export class RunDurability {
  readonly #db: SqlDatabase;
  readonly #s: ReturnType<typeof prepare>;

  constructor(db: SqlDatabase) {
    this.#db = db;
    this.#s = prepare(db);
  }

  /** Appends a transcript change, its entry already serialised. */
  appendTranscript(row: { run_id: string; node_id: string; ts: number; entry: string }): void {
    this.#s.appendTranscript.run(row);
  }

  listTranscript(runId: string, nodeId: string): TranscriptEntry[] {
    const rows = this.#s.listTranscript.all(runId, nodeId) as { entry: string }[];
    return rows.map((row) => transcriptEntryFromColumn(row.entry));
  }

  /** Makes `owner` the holder of a run, with a fresh lease. */
  claim(runId: string, owner: RunOwner, now: number): void {
    this.#s.claim.run({
      id: runId,
      owner: JSON.stringify(owner),
      lease_until: now + LEASE_MS,
      now,
    });
  }

  /**
   * Takes an interrupted run for `owner`, unless another arbor holds a lease on it (it is taking
   * the run up): with `resume`, marks it `running` too. One compare-and-set statement, so of two
   * arbors taking one run up at once exactly one gets it. Returns whether this one did.
   */
  take(runId: string, owner: RunOwner, now: number, resume: boolean): boolean {
    const row = { id: runId, owner: JSON.stringify(owner), lease_until: now + LEASE_MS, now };
    const result = (resume ? this.#s.takeOver : this.#s.reserve).run(row);
    return Number(result.changes) === 1;
  }

  /** Renews the lease of every running run `owner` holds, counting the time since the last one. */
  renew(owner: RunOwner, now: number): void {
    this.#s.renew.run({ owner: JSON.stringify(owner), lease_until: now + LEASE_MS, now });
  }

  hold(runId: string): RunHold | undefined {
    const row = this.#s.hold.get(runId) as
      { owner: string | null; lease_until: number | null; active_ms: number } | undefined;
    if (row === undefined) return undefined;
    return {
      owner: ownerFromColumn(row.owner),
      leaseUntil: row.lease_until ?? undefined,
      activeMs: row.active_ms,
    };
  }

  /**
   * Marks `interrupted` every running run whose supervisor is gone (lease expired, or its process
   * on this host dead), with the nodes that were still going. Open gates stay open: a resume asks
   * them again. Returns what it marked.
   */
  reap(me: RunOwner, now: number): InterruptedRun[] {
    const rows = this.#s.running.all() as {
      id: string;
      owner: string | null;
      lease_until: number | null;
    }[];
    const marked: InterruptedRun[] = [];
    for (const row of rows) {
      const owner = ownerFromColumn(row.owner);
      const reason = whyAbandoned(owner, row.lease_until ?? undefined, me, now);
      if (reason === undefined) continue;
      const interrupted = this.#db.transaction(() => {
        // Only if nobody renewed or took the run since it was read (another arbor reaping too).
        const changed = this.#s.interruptRun.run({
          id: row.id,
          owner: row.owner,
          lease_until: row.lease_until,
        }).changes;
        if (Number(changed) === 0) return false;
        this.#s.lastStretch.run({ id: row.id });
        this.#s.interruptNodes.run({ run_id: row.id });
        // The gates open at the crash: a resume asks them again under the same id, and takes an
        // answer given to one while the run lay dead (`arbor gate answer`).
        const openGates = (this.#s.openGates.all(row.id) as { id: string }[]).map((g) => g.id);
        this.#s.event.run({
          run_id: row.id,
          ts: now,
          data: JSON.stringify({
            reason,
            ...(owner === undefined ? {} : { owner }),
            ...(openGates.length === 0 ? {} : { open_gates: openGates }),
          }),
        });
        return true;
      })();
      if (interrupted) marked.push({ runId: row.id, reason });
    }
    return marked;
  }
}

function prepare(db: SqlDatabase) {
  return {
    appendTranscript: db.prepare(
      'INSERT INTO transcripts (run_id, node_id, ts, entry) VALUES (@run_id, @node_id, @ts, @entry)',
    ),
    listTranscript: db.prepare(
      'SELECT entry FROM transcripts WHERE run_id = ? AND node_id = ? ORDER BY seq',
    ),
    claim: db.prepare(
      `UPDATE runs SET owner = @owner, lease_until = @lease_until, lease_renewed_at = @now
       WHERE id = @id`,
    ),
    renew: db.prepare(
      `UPDATE runs SET active_ms = active_ms + MAX(0, @now - COALESCE(lease_renewed_at, @now)),
         lease_renewed_at = @now, lease_until = @lease_until
       WHERE status = 'running' AND owner = @owner`,
    ),
    reserve: db.prepare(
      `UPDATE runs SET owner = @owner, lease_until = @lease_until
       WHERE id = @id AND status = 'interrupted' AND ${TAKEABLE}`,
    ),
    takeOver: db.prepare(
      `UPDATE runs SET status = 'running', ended_at = NULL, owner = @owner,
         lease_until = @lease_until, lease_renewed_at = @now
       WHERE id = @id AND status = 'interrupted' AND ${TAKEABLE}`,
    ),
    hold: db.prepare('SELECT owner, lease_until, active_ms FROM runs WHERE id = ?'),
    running: db.prepare("SELECT id, owner, lease_until FROM runs WHERE status = 'running'"),
    openGates: db.prepare(
      "SELECT id FROM gates WHERE run_id = ? AND status = 'open' ORDER BY created_at",
    ),
    // The dead owner's lease goes with it: a lease on an interrupted run means an arbor taking it up.
    interruptRun: db.prepare(
      `UPDATE runs SET status = 'interrupted', lease_until = NULL
       WHERE id = @id AND status = 'running' AND owner IS @owner AND lease_until IS @lease_until`,
    ),
    // The run was active from its last lease renewal until the last thing it recorded: that
    // stretch counts toward its deadline too, as a renewal would have counted it.
    lastStretch: db.prepare(
      `UPDATE runs SET active_ms = active_ms + MAX(0, MAX(
           COALESCE((SELECT MAX(ts) FROM events WHERE run_id = @id), 0),
           COALESCE((SELECT MAX(ts) FROM transcripts WHERE run_id = @id), 0)
         ) - lease_renewed_at)
       WHERE id = @id AND lease_renewed_at IS NOT NULL`,
    ),
    interruptNodes: db.prepare(
      `UPDATE nodes SET status = 'interrupted'
       WHERE run_id = @run_id AND status IN ${ACTIVE_NODE_STATUSES}`,
    ),
    event: db.prepare(
      `INSERT INTO events (run_id, node_id, ts, kind, data)
       VALUES (@run_id, NULL, @ts, 'run.interrupted', @data)`,
    ),
  };
}
