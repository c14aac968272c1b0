import { ArborError } from '../protocol/index.js';
import { BetterSqlite3SqlDatabase } from './better-sqlite3-database.js';
import { NodeSqliteSqlDatabase, type NodeSqliteModule } from './node-sqlite-database.js';
import type { SqlDatabase, SqlDriverName } from './sql-database.js';

/**
 * Opens an SQLite database with the binding this Node.js has: the built-in `node:sqlite`
 * (Node 22.5 on; behind `--experimental-sqlite` until 22.13) or else `better-sqlite3`, an optional
 * peer dependency installed only where it is needed (Node 20 to 22.12; its native module is built
 * for one Node.js). `driver` picks one; tests use it to run the same cases on every binding that
 * loads.
 */
export function openSqlDatabase(path: string, driver?: SqlDriverName): SqlDatabase {
  return sqlDatabaseOpener(driver)(path);
}

/**
 * The opener of the binding `openSqlDatabase` would use, found before anything is opened or
 * created: a Node.js with no binding is refused without leaving a store directory behind.
 */
export function sqlDatabaseOpener(driver?: SqlDriverName): (path: string) => SqlDatabase {
  const choice = driver ?? (loadNodeSqlite() === undefined ? 'better-sqlite3' : 'node:sqlite');
  if (choice === 'node:sqlite') {
    const sqlite = loadNodeSqlite();
    if (sqlite === undefined) throw noBinding('node:sqlite is not available');
    return (path) => new NodeSqliteSqlDatabase(sqlite, path);
  }
  const why = betterSqlite3Problem();
  if (why !== undefined) throw noBinding(why);
  return (path) => new BetterSqlite3SqlDatabase(path);
}

/** The bindings that load on this Node.js, preferred first. */
export function availableSqlDrivers(): SqlDriverName[] {
  const drivers: SqlDriverName[] = [];
  if (loadNodeSqlite() !== undefined) drivers.push('node:sqlite');
  if (betterSqlite3Problem() === undefined) drivers.push('better-sqlite3');
  return drivers;
}

let nodeSqlite: NodeSqliteModule | null | undefined;

/**
 * `node:sqlite`, or `undefined` where this Node.js has none. Where it is still experimental,
 * Node.js prints an `ExperimentalWarning` on stderr when it loads (22.12 with
 * `--experimental-sqlite` does); arbor's stderr is the user's terminal or an event stream, so
 * that one warning is held back while the module loads.
 */
export function loadNodeSqlite(): NodeSqliteModule | undefined {
  if (nodeSqlite !== undefined) return nodeSqlite ?? undefined;
  const getBuiltinModule = (process as { getBuiltinModule?: (id: string) => unknown })
    .getBuiltinModule;
  if (getBuiltinModule === undefined) {
    nodeSqlite = null;
    return undefined;
  }
  const original: unknown = Reflect.get(process, 'emitWarning');
  const forward = process.emitWarning.bind(process);
  process.emitWarning = ((...args: Parameters<typeof forward>) => {
    if (!isSqliteWarning(args)) forward(...args);
  }) as typeof process.emitWarning;
  try {
    // Node 22.5 to 22.12 without `--experimental-sqlite` answer `undefined`.
    const loaded = getBuiltinModule.call(process, 'node:sqlite') as NodeSqliteModule | undefined;
    nodeSqlite = typeof loaded?.DatabaseSync === 'function' ? loaded : null;
  } catch {
    nodeSqlite = null;
  } finally {
    Reflect.set(process, 'emitWarning', original);
  }
  return nodeSqlite ?? undefined;
}

function isSqliteWarning(args: Parameters<typeof process.emitWarning>): boolean {
  const [warning, typeOrOptions] = args;
  const message = typeof warning === 'string' ? warning : warning.message;
  const type =
    typeof typeOrOptions === 'string'
      ? typeOrOptions
      : (typeOrOptions?.type ?? (typeof warning === 'string' ? undefined : warning.name));
  return type === 'ExperimentalWarning' && /sqlite/i.test(message);
}

let betterSqlite3Checked: { problem: string | undefined } | undefined;

/** Why `better-sqlite3` does not load here (not installed, or built for another Node.js). */
function betterSqlite3Problem(): string | undefined {
  if (betterSqlite3Checked !== undefined) return betterSqlite3Checked.problem;
  try {
    new BetterSqlite3SqlDatabase(':memory:').close();
    betterSqlite3Checked = { problem: undefined };
  } catch (error) {
    const message = error instanceof Error ? error.message : String(error);
    betterSqlite3Checked = {
      problem: isNotInstalled(error)
        ? 'better-sqlite3 is not installed (an optional peer dependency of arbor, needed only where node:sqlite is missing): run `npm install better-sqlite3@12`'
        : `better-sqlite3 does not load (${oneLine(message)}): run \`npm rebuild better-sqlite3\` with this Node.js`,
    };
  }
  return betterSqlite3Checked.problem;
}

/** The module itself is missing (not a native module built for another Node.js). */
function isNotInstalled(error: unknown): boolean {
  const { code, message } = error as { code?: unknown; message?: unknown };
  return (
    code === 'MODULE_NOT_FOUND' &&
    typeof message === 'string' &&
    message.includes("'better-sqlite3'")
  );
}

function oneLine(text: string): string {
  return text.replace(/\s*\n\s*/g, ' ').trim();
}

function noBinding(why: string): ArborError {
  return new ArborError(
    'config',
    `No SQLite binding for the store on Node.js ${process.version}: ${why}; or use Node.js 22.13 or later, whose built-in node:sqlite needs nothing installed.`,
    { details: { nodeVersion: process.version } },
  );
}
