/** A record whose values are made on first read, each once. */
export function lazyRecord<T extends Record<string, () => unknown>>(
  makers: T,
): { [K in keyof T]: ReturnType<T[K]> } {
  const out = {} as { [K in keyof T]: ReturnType<T[K]> };
  for (const key of Object.keys(makers) as (keyof T & string)[]) {
    Object.defineProperty(out, key, {
      enumerable: true,
      configurable: true,
      get: () => {
        const value = (makers[key] as () => unknown)();
        Object.defineProperty(out, key, { value, enumerable: true });
        return value;
      },
    });
  }
  return out;
}
