import { chmod, lstat, mkdir, readdir, rm } from 'node:fs/promises';
import { createServer, type Socket } from 'node:net';
import { join } from 'node:path';
import { NdjsonReader } from '../../protocol/index.js';
import {
  decodeSessionRequest,
  type EgressForward,
  type EgressOpen,
  type EgressReport,
  type SessionReply,
} from './egress-control.js';
import type { EgressRules, ResolveHost } from './egress-policy.js';
import { EgressSession, type SessionNode } from './egress-session.js';
import { NodeLimits } from './node-limits.js';
import { UnixListener } from './unix-listener.js';

/** A session request must arrive within this time of connecting. */
const SESSION_REQUEST_MS = 10_000;
/** Longest session request line, in bytes. */
const MAX_REQUEST_BYTES = 70 * 1024;
/** Sessions open at once in one node. */
const MAX_SESSIONS = 256;
/**
 * Longest Unix socket path the system takes, in bytes (`sun_path` is 108 bytes on Linux and 104
 * on macOS, the terminating NUL included).
 */
const MAX_SOCKET_PATH = process.platform === 'linux' ? 107 : 103;

/**
 * One node's egress: its directory (mode 0700), its `control.sock`, where the node's child asks
 * for a session per command, and the limits all its sessions share.
 */
export class EgressNode implements SessionNode {
  readonly node: string;
  readonly dir: string;
  readonly rules: EgressRules;
  readonly limits: NodeLimits;
  readonly forwards: readonly EgressForward[];
  readonly #onReport: (line: EgressReport) => void;
  readonly #sessions = new Set<EgressSession>();
  #listener: UnixListener | undefined;
  #count = 0;
  #closed: Promise<void> | undefined;

  private constructor(
    request: EgressOpen,
    resolve: ResolveHost,
    onReport: (line: EgressReport) => void,
  ) {
    this.node = request.node;
    this.dir = request.dir;
    this.rules = { net: request.net, named: request.named, resolve };
    this.limits = new NodeLimits(request.limits);
    this.forwards = request.forwards;
    this.#onReport = onReport;
  }

  /** Makes the directory and listens on its `control.sock`; a string says why it could not. */
  static async open(
    request: EgressOpen,
    resolve: ResolveHost,
    onReport: (line: EgressReport) => void,
  ): Promise<EgressNode | string> {
    const longest = join(
      request.dir,
      `s-${MAX_SESSIONS}000000`,
      `fwd-${request.forwards.length}.sock`,
    );
    if (Buffer.byteLength(longest) > MAX_SOCKET_PATH)
      return `\`${request.dir}\` is too long for the sockets under it (at most ${MAX_SOCKET_PATH} bytes for \`${longest}\`)`;
    const problem = await makeEmptyDir(request.dir);
    if (problem !== undefined) return problem;
    const node = new EgressNode(request, resolve, onReport);
    const server = createServer((socket) => {
      node.#onControl(socket);
    });
    try {
      node.#listener = await UnixListener.listen(server, join(request.dir, 'control.sock'));
    } catch (error) {
      await rm(request.dir, { recursive: true, force: true });
      return `cannot listen on ${join(request.dir, 'control.sock')}: ${describe(error)}`;
    }
    return node;
  }

  report(line: EgressReport): void {
    this.#onReport(line);
  }

  /** Closes `control.sock` and every session (their traffic reported), and removes the directory. */
  close(): Promise<void> {
    this.#closed ??= this.#close();
    return this.#closed;
  }

  async #close(): Promise<void> {
    await this.#listener?.close();
    await Promise.all([...this.#sessions].map((session) => session.close()));
    await rm(this.dir, { recursive: true, force: true });
  }

  /** One connection to `control.sock`: one session request, and the session while it stays. */
  #onControl(socket: Socket): void {
    socket.on('error', () => socket.destroy());
    if (this.#closed !== undefined) {
      socket.destroy();
      return;
    }
    socket.setTimeout(SESSION_REQUEST_MS, () => socket.destroy());
    const reader = new NdjsonReader((text) => decodeSessionRequest(text), {
      maxLineBytes: MAX_REQUEST_BYTES,
    });
    let session: EgressSession | undefined;
    let answered = false;
    socket.on('data', (chunk: Buffer) => {
      if (answered) return;
      const [first] = reader.push(chunk);
      if (first === undefined) return;
      answered = true;
      socket.setTimeout(0);
      if (!first.ok) {
        this.#refuseSession(
          socket,
          `expected one line {"command": "…"}: ${first.violation.reason}`,
        );
        return;
      }
      if (this.#sessions.size >= MAX_SESSIONS) {
        this.#refuseSession(socket, `over the node's limit of ${MAX_SESSIONS} open sessions`);
        return;
      }
      session = this.#startSession(first.frame.command, socket);
    });
    socket.on('close', () => {
      if (session !== undefined) void this.#endSession(session);
    });
  }

  #startSession(command: string, socket: Socket): EgressSession {
    this.#count += 1;
    const session = new EgressSession(this, join(this.dir, `s-${this.#count}`), command);
    this.#sessions.add(session);
    session.start().then(
      (reply) => {
        if (!socket.destroyed) socket.write(replyLine(reply));
      },
      (error: unknown) => {
        this.#refuseSession(socket, `the session could not start: ${describe(error)}`);
        void this.#endSession(session);
      },
    );
    return session;
  }

  async #endSession(session: EgressSession): Promise<void> {
    await session.close();
    this.#sessions.delete(session);
  }

  /** Answers a session request with an error, reported too, and ends the connection. */
  #refuseSession(socket: Socket, message: string): void {
    this.report({ type: 'error', node: this.node, message: `control.sock: ${message}` });
    if (!socket.destroyed) socket.end(replyLine({ error: message }));
  }
}

function replyLine(reply: SessionReply): string {
  return `${JSON.stringify(reply)}\n`;
}

/** Makes `dir` (mode 0700), or takes it if it is an empty directory; a string says why not. */
async function makeEmptyDir(dir: string): Promise<string | undefined> {
  try {
    await mkdir(dir, { mode: 0o700 });
  } catch (error) {
    if ((error as NodeJS.ErrnoException).code !== 'EEXIST')
      return `cannot make ${dir}: ${describe(error)}`;
    const stat = await lstat(dir);
    if (!stat.isDirectory()) return `${dir} exists and is not a directory`;
    if ((await readdir(dir)).length > 0) return `${dir} exists and is not empty`;
  }
  await chmod(dir, 0o700);
  return undefined;
}

function describe(error: unknown): string {
  const code = (error as NodeJS.ErrnoException | undefined)?.code;
  return code ?? (error instanceof Error ? error.message : String(error));
}
