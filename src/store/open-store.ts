import { ArborError } from '../protocol/index.js';
import { MIGRATIONS } from './migrations.js';
import { sqlDatabaseOpener } from './open-sql-database.js';
import type { SqlDatabase, SqlDriverName } from './sql-database.js';
import { prepareStorePath, storeError } from './store-path.js';

/** Opens the database at `path`, set up and migrated; any failure names the path. */
export function openStore(path: string, driver: SqlDriverName | undefined): SqlDatabase {
  const open = sqlDatabaseOpener(driver);
  prepareStorePath(path);
  let db: SqlDatabase;
  try {
    db = open(path);
  } catch (error) {
    throw storeError(path, error instanceof Error ? error.message : String(error), error);
  }
  try {
    db.pragma('journal_mode = WAL');
    db.pragma('synchronous = NORMAL');
    db.pragma('foreign_keys = ON');
    db.pragma('busy_timeout = 5000');
    migrate(db, path);
    return db;
  } catch (error) {
    if (db.isOpen) db.close();
    if (error instanceof ArborError) throw error;
    throw storeError(path, error instanceof Error ? error.message : String(error), error);
  }
}

function migrate(db: SqlDatabase, path: string): void {
  const version = Number(db.pragma('user_version'));
  if (version > MIGRATIONS.length) {
    throw new ArborError(
      'config',
      `The store at ${path} has schema version ${version}, newer than this arbor understands (${MIGRATIONS.length}). Upgrade arbor or use another --db.`,
    );
  }
  if (version === 0 && db.prepare('SELECT 1 FROM sqlite_master LIMIT 1').get() !== undefined) {
    throw storeError(
      path,
      'it is an SQLite database that arbor did not create (it has tables and no arbor schema version)',
    );
  }
  const apply = db.transaction(() => {
    for (let i = version; i < MIGRATIONS.length; i++) {
      db.exec(MIGRATIONS[i] ?? '');
      db.pragma(`user_version = ${i + 1}`);
    }
  });
  apply();
}
