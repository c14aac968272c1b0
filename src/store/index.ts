export { availableSqlDrivers, openSqlDatabase } from './open-sql-database.js';
export { DEFAULT_DB_PATH, SqliteStore } from './sqlite-store.js';
export { withStore } from './with-store.js';
export type { McpTaskRecord, ScheduleRecord, TaskRecord } from './rows.js';
export { LEASE_RENEW_MS } from './run-owner.js';
export { listModelCalls, modelCallsOf } from './model-calls.js';
