import { serveEgressControl } from './control-loop.js';

/**
 * Entry of the egress proxy process (`dist/tools/egress/proxy-main.js`), started by the supervisor
 * with an empty environment: control lines on stdin, answers and reports on stdout. When stdin
 * ends, every node is closed and the process exits. A supervisor that is gone (its end of stdout
 * closed) or that stops it (SIGTERM) ends it too: nobody is left to serve.
 */
process.stdout.on('error', () => {
  process.exit(0);
});
process.on('SIGTERM', () => {
  process.stdin.destroy();
  process.exit(0);
});
await serveEgressControl(process.stdin, process.stdout);
process.exit(0);
