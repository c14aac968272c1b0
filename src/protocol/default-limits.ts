/**
 * arbor's default limits, each defined here once: the settings (`arbor run`, `arbor plan run`,
 * the library), the supervisor's fallbacks and the child's `max_steps` all read them. It sits in
 * protocol/ because the lowest user is the wire schema of a child's limits.
 */
export const DEFAULT_LIMITS = {
  /** Model calls per node (per turn for a warm session). */
  maxSteps: 50,
  /** Levels of delegation below the root. */
  maxDepth: 3,
  /** Live children one node may have at once. */
  maxBreadth: 8,
  /** Nodes a run may create in all, the root excluded. */
  maxTotal: 64,
  /** Spawns that may wait at once for the spawn rate or a caller's breadth. */
  maxQueued: 64,
  /** At most 8 spawns per 2 s across the run. */
  spawnRate: { count: 8, perMs: 2_000 },
  /** No ceiling on the tree, a child asking for too much gets what is left, no rate windows. */
  budget: { ceiling: {}, onExcess: 'clamp', windows: [] },
} as const;
