import { startupSnapshot } from 'node:v8';
import { prepareChild, startChild } from './child-start.js';
import { SNAPSHOT_PROBE_ENV, SNAPSHOT_PROBE_REPLY } from './pool-signals.js';

/**
 * Entry of the child's V8 start-up snapshot (`dist/bundle/child-snapshot.cjs`, built into a blob
 * with `node --build-snapshot`; see `src/supervisor/launch/child-snapshot.ts`). Loading the modules and
 * the first-time work run while the snapshot is built, so they are in the heap a child starts
 * with; the rest of the child runs in the main function, in the process that loads the snapshot.
 * Started with `ARBOR_CHILD_SNAPSHOT_PROBE=1`, the main function only says it loaded: that is how a
 * new snapshot is checked before it is used.
 */
prepareChild();

startupSnapshot.setDeserializeMainFunction(() => {
  if (process.env[SNAPSHOT_PROBE_ENV] === '1') {
    process.stdout.write(`${SNAPSHOT_PROBE_REPLY}\n`);
    return;
  }
  void startChild('snapshot');
});
