import type { EgressOpen, EgressReport } from './egress-control.js';
import { EgressNode } from './egress-node.js';
import { resolveWithDns, type ResolveHost } from './egress-policy.js';

export interface EgressProxyOptions {
  /** Every `refused` and `traffic` line, and errors of sessions, as they happen. */
  onReport: (line: EgressReport) => void;
  /** How host names resolve; the system resolver unless a test stands in its own. */
  resolve?: ResolveHost;
}

/**
 * The egress proxy: the nodes open in it, each with its directory, `control.sock` and sessions
 * (`egress-node.ts`). `proxy-main.ts` drives one over stdin and stdout; tests drive it in-process.
 * Each call answers with the line the control channel sends back.
 */
export class EgressProxy {
  readonly #nodes = new Map<string, EgressNode | 'opening' | 'closing'>();
  readonly #onReport: (line: EgressReport) => void;
  readonly #resolve: ResolveHost;

  constructor(options: EgressProxyOptions) {
    this.#onReport = options.onReport;
    this.#resolve = options.resolve ?? resolveWithDns;
  }

  /** Opens a node: `opened`, or an `error` that says why not. */
  async open(request: EgressOpen): Promise<EgressReport> {
    const { node } = request;
    if (this.#nodes.has(node))
      return { type: 'error', node, message: `node \`${node}\` is already open` };
    this.#nodes.set(node, 'opening');
    let opened: EgressNode | string;
    try {
      opened = await EgressNode.open(request, this.#resolve, this.#onReport);
    } catch (error) {
      opened = `cannot open ${request.dir}: ${error instanceof Error ? error.message : String(error)}`;
    }
    if (typeof opened === 'string') {
      this.#nodes.delete(node);
      return { type: 'error', node, message: opened };
    }
    this.#nodes.set(node, opened);
    return { type: 'opened', node };
  }

  /** Closes a node and its sessions; their `traffic` lines come before the `closed` answer. */
  async close(node: string): Promise<EgressReport> {
    const open = this.#nodes.get(node);
    if (open === undefined || typeof open === 'string')
      return { type: 'error', node, message: `node \`${node}\` is not open` };
    this.#nodes.set(node, 'closing');
    try {
      await open.close();
    } finally {
      this.#nodes.delete(node);
    }
    return { type: 'closed', node };
  }

  /** Closes every open node. */
  async closeAll(): Promise<void> {
    const nodes = [...this.#nodes].filter(([, state]) => state instanceof EgressNode);
    await Promise.all(nodes.map(([node]) => this.close(node)));
  }
}
