import type { z } from 'zod';
import {
  MEMORY_BOUNDS,
  type MemoryDeleteArgs,
  type MemoryGetArgs,
  type MemoryListArgs,
  type MemorySetArgs,
} from '../../tools/index.js';
import type { RunStore } from '../../store/store-port.js';
import { fail, ok, type ToolAnswer } from './tool-answer.js';

const LIST_LIMIT = 200;

/**
 * Durable memory: a key-value store in the run store, shared by every run that uses it, each entry
 * with an optional time to live. An expired entry reads as absent. Keys and values are bounded by
 * the tools' schemas (`MEMORY_BOUNDS`); the number of entries is bounded here, so no agent can
 * grow the store without end: a model that hits a bound gets a tool error it can act on.
 */
export const memoryTools = {
  get(store: RunStore, args: z.infer<typeof MemoryGetArgs>, now: number): ToolAnswer {
    const entry = store.memoryGet(args.key, now);
    if (entry === undefined) return ok({ key: args.key, found: false });
    return ok({
      key: args.key,
      found: true,
      value: entry.value,
      ...(entry.expiresAt === undefined ? {} : { expires_in_ms: entry.expiresAt - now }),
    });
  },
  set(store: RunStore, args: z.infer<typeof MemorySetArgs>, now: number): ToolAnswer {
    const limit = MEMORY_BOUNDS.entries;
    if (
      store.memoryGet(args.key, now) === undefined &&
      store.memoryList('', now, limit).length >= limit
    )
      return fail(
        `Memory holds ${limit} entries, the most it may: \`${args.key}\` was not stored. Delete entries you no longer need (memory.delete), or set an existing key.`,
      );
    store.memorySet({
      key: args.key,
      value: args.value ?? null,
      updatedAt: now,
      ...(args.ttl_ms === undefined ? {} : { expiresAt: now + args.ttl_ms }),
    });
    return ok({ key: args.key, stored: true });
  },
  list(store: RunStore, args: z.infer<typeof MemoryListArgs>, now: number): ToolAnswer {
    const keys = store.memoryList(args.prefix ?? '', now, LIST_LIMIT + 1);
    return ok({
      keys: keys.slice(0, LIST_LIMIT),
      ...(keys.length > LIST_LIMIT ? { truncated: true } : {}),
    });
  },
  delete(store: RunStore, args: z.infer<typeof MemoryDeleteArgs>): ToolAnswer {
    return ok({ key: args.key, deleted: store.memoryDelete(args.key) });
  },
};
