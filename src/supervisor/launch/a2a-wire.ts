import { Role, type Message, type Task } from '@a2a-js/sdk';
import {
  ClientFactory,
  ClientFactoryOptions,
  JsonRpcTransportFactory,
  RestTransportFactory,
  type Client,
} from '@a2a-js/sdk/client';
import { randomUUID } from 'node:crypto';
import type { A2aPeerSpec, SpawnPayload } from '../../protocol/index.js';

/** How long reading a peer's agent card may take. */
export const CONNECT_TIMEOUT_MS = 15_000;

/** The wire side of an `a2a` node: its client, and the messages and texts it reads and writes. */

export function collect(remote: { text: string }, artifacts: Task['artifacts']): void {
  const text = artifacts
    .flatMap((artifact) => artifact.parts)
    .map((part) => {
      const content = part.content;
      if (content?.$case === 'text') return content.value;
      if (content?.$case === 'data') return JSON.stringify(content.value);
      return '';
    })
    .filter((piece) => piece !== '')
    .join('\n');
  if (text !== '') remote.text = text;
}

export function outgoing(text: string, task: Task | undefined): Message {
  return {
    messageId: randomUUID(),
    contextId: task?.contextId ?? '',
    taskId: task?.id ?? '',
    role: Role.ROLE_USER,
    parts: [
      {
        content: { $case: 'text', value: text },
        metadata: undefined,
        filename: '',
        mediaType: 'text/plain',
      },
    ],
    metadata: undefined,
    extensions: [],
    referenceTaskIds: [],
  };
}

/** The instruction, with what the parent chose to share (its context seed), as one message. */
export function seedText(payload: SpawnPayload): string {
  const shared = payload.context_seed
    .map((message) =>
      typeof message.content === 'string' ? message.content : JSON.stringify(message.content),
    )
    .filter((text) => text !== '');
  return shared.length === 0
    ? payload.instruction
    : `${payload.instruction}\n\nContext:\n${shared.join('\n\n')}`;
}

export function statusText(task: Task | undefined): string {
  return (task?.status?.message?.parts ?? [])
    .map((part) => (part.content?.$case === 'text' ? part.content.value : ''))
    .join('\n')
    .trim();
}

/** A client for the peer: its card from `/.well-known/agent-card.json`, its headers on every call. */
export async function connect(
  peer: A2aPeerSpec,
  signal: AbortSignal,
  traceparent?: string,
): Promise<Client> {
  const origin = new URL(peer.url).origin;
  const withHeaders: typeof fetch = (input, init) => {
    // The peer's headers (its token) go to the peer's own origin only, whatever its card says.
    const target = new URL(input instanceof Request ? input.url : String(input));
    if (target.origin !== origin)
      return Promise.reject(
        new Error(
          `its agent card points at ${target.origin}, not at ${origin}, where it was configured`,
        ),
      );
    const headers = new Headers(init?.headers);
    for (const [name, value] of Object.entries(peer.headers)) headers.set(name, value);
    // The node's span: a traced peer continues this run's trace under it.
    if (traceparent !== undefined) headers.set('traceparent', traceparent);
    return fetch(input, { ...init, headers });
  };
  const factory = new ClientFactory(
    ClientFactoryOptions.createFrom(ClientFactoryOptions.default, {
      // Both bindings carry the peer's headers: a peer whose card lists HTTP+JSON first is
      // called over it, and the SDK's default REST transport would send no token. The options
      // classes are not exported; a plain object of their one field is what they hold.
      transports: [
        // eslint-disable-next-line @typescript-eslint/no-unsafe-class-instance-assignment
        new JsonRpcTransportFactory({ fetchImpl: withHeaders }),
        // eslint-disable-next-line @typescript-eslint/no-unsafe-class-instance-assignment
        new RestTransportFactory({ fetchImpl: withHeaders }),
      ],
    }),
  );
  const card = factory.createFromUrl(peer.url.replace(/\/+$/, ''));
  let stop = (): void => undefined;
  const gaveUp = new Promise<never>((_, reject) => {
    stop = () => {
      reject(new Error(`no agent card within ${CONNECT_TIMEOUT_MS} ms, or the node stopped`));
    };
    if (signal.aborted) stop();
    signal.addEventListener('abort', stop, { once: true });
  });
  try {
    return await Promise.race([card, gaveUp]);
  } finally {
    signal.removeEventListener('abort', stop);
    // A card that comes (or fails) after the node gave up is nobody's.
    card.catch(() => undefined);
    gaveUp.catch(() => undefined);
  }
}
