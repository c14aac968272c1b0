import { grantsNet } from '../../authority/index.js';
import {
  netBridge,
  openEgressSession,
  systemBinary,
  type CommandNetwork,
} from '../sandbox/index.js';
import type { BuiltinContext } from './builtin-context.js';

/** A command's network, and what to do once the command has ended. */
export interface ExecNetwork {
  network: CommandNetwork;
  close(): void;
}

const NOTHING_TO_CLOSE = (): void => undefined;

/** What a command without a way out is told, when its grant says it should have one. */
const NO_SOCAT =
  'socat is not installed, and commands reach the network only through it (Debian/Ubuntu: ' +
  '`apt-get install socat`)';

/**
 * The network one sandboxed command gets under the node's grant: none for `net = "none"`; the
 * host's own namespace only where the operator opted out of the proxy and the node holds `all`;
 * otherwise a session of the node's egress proxy, bridged into the command's namespace. Where the
 * proxy or the bridge is missing, the command still runs, without a network, and is told why.
 */
export async function execNetwork(
  context: Pick<BuiltinContext, 'caveats' | 'sandbox' | 'egress'>,
  command: string,
  signal: AbortSignal,
): Promise<ExecNetwork> {
  const { caveats, sandbox, egress } = context;
  if (sandbox.mode !== 'bwrap' || !grantsNet(caveats.net))
    return { network: { kind: 'none' }, close: NOTHING_TO_CLOSE };
  if (sandbox.network === 'host' && caveats.net === 'all')
    return { network: { kind: 'host' }, close: NOTHING_TO_CLOSE };
  const none = (why: string): ExecNetwork => ({
    network: { kind: 'none', why },
    close: NOTHING_TO_CLOSE,
  });
  if (egress === undefined) return none('this agent has no egress proxy');
  const socat = systemBinary('socat');
  if (socat === undefined) return none(NO_SOCAT);
  let session: Awaited<ReturnType<typeof openEgressSession>>;
  try {
    session = await openEgressSession(egress, command, signal);
  } catch (error) {
    signal.throwIfAborted();
    return none(error instanceof Error ? error.message : String(error));
  }
  const bridge = netBridge(session, socat);
  return {
    network: { kind: 'proxy', bridge },
    close: () => {
      bridge.cleanup();
      session.close();
    },
  };
}
