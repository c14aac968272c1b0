import { serveEgressControl } from './control-loop.js';

/**
 * Entry of the egress proxy process (`dist/tools/egress/proxy-main.js`), started by the supervisor
 * with an empty environment: control lines on stdin, answers and reports on stdout. When stdin
 * ends, every node is closed and the process exits.
 */
await serveEgressControl(process.stdin, process.stdout);
process.exit(0);
