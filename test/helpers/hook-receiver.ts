import { createServer, type IncomingHttpHeaders } from 'node:http';
import type { AddressInfo } from 'node:net';
import { afterEach } from 'vitest';

/** One POST a receiver was sent. */
export interface Received {
  headers: IncomingHttpHeaders;
  body: Record<string, unknown>;
}

const closers: (() => Promise<void>)[] = [];
afterEach(async () => {
  await Promise.all(closers.splice(0).map((close) => close()));
});

/** A webhook receiver on loopback that records the JSON it is POSTed; closed after the test. */
export async function hookReceiver() {
  const received: Received[] = [];
  let wake: (() => void) | undefined;
  const server = createServer((request, response) => {
    const chunks: Buffer[] = [];
    request.on('data', (chunk: Buffer) => chunks.push(chunk));
    request.on('end', () => {
      received.push({
        headers: request.headers,
        body: JSON.parse(Buffer.concat(chunks).toString('utf8')) as Record<string, unknown>,
      });
      response.end('ok');
      wake?.();
    });
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  closers.push(
    () =>
      new Promise((resolve) => {
        server.close(() => {
          resolve();
        });
      }),
  );
  const url = `http://127.0.0.1:${(server.address() as AddressInfo).port}/hook`;
  /** What it has received once `done` holds of it (awaited, never polled). */
  const until = async (done: (all: Received[]) => boolean): Promise<Received[]> => {
    while (!done(received)) await new Promise<void>((resolve) => (wake = resolve));
    return received;
  };
  return { url, received, until };
}
