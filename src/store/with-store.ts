import { SqliteStore } from './sqlite-store.js';

/**
 * Opens the store at `path` for one piece of work (a short read, a gate answered) and closes it
 * when `use` is done: when it returns, throws, or, for async work, once its promise settles.
 */
export function withStore<T>(path: string, use: (store: SqliteStore) => Promise<T>): Promise<T>;
export function withStore<T>(path: string, use: (store: SqliteStore) => T): T;
export function withStore<T>(path: string, use: (store: SqliteStore) => T): T | Promise<T> {
  const store = new SqliteStore(path);
  let result: T;
  try {
    result = use(store);
  } catch (error) {
    store.close();
    throw error;
  }
  if (!(result instanceof Promise)) {
    store.close();
    return result;
  }
  return result.finally(() => {
    store.close();
  }) as Promise<T>;
}
