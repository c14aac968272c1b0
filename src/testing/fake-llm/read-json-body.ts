import type { IncomingMessage } from 'node:http';

/** The largest request body the fake server reads. */
const MAX_BODY_BYTES = 64 * 1024 * 1024;

export type BodyRead =
  { ok: true; value: unknown; chars: number } | { ok: false; status: number; reason: string };

/** Reads a request body and decodes it as JSON: the fake server's edge. */
export async function readJsonBody(request: IncomingMessage): Promise<BodyRead> {
  const chunks: Buffer[] = [];
  let size = 0;
  for await (const chunk of request as AsyncIterable<Buffer>) {
    size += chunk.length;
    if (size > MAX_BODY_BYTES) {
      return { ok: false, status: 413, reason: `the body exceeds ${MAX_BODY_BYTES} bytes` };
    }
    chunks.push(chunk);
  }
  const text = Buffer.concat(chunks).toString('utf8');
  try {
    return { ok: true, value: JSON.parse(text) as unknown, chars: text.length };
  } catch {
    return { ok: false, status: 400, reason: `the body is not JSON (${text.length} chars)` };
  }
}
