export { DEFAULT_DB_PATH, SqliteStore } from './sqlite-store.js';
