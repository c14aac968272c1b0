import { decodeLine, type DecodeResult, type Direction, type FrameOf } from './decode.js';
import { NdjsonReader, type NdjsonReaderOptions } from './ndjson-reader.js';

/** A reader that decodes frames travelling in `direction` (`any` admits both). */
export function createFrameReader<D extends Direction | 'any'>(
  direction: D,
  options: NdjsonReaderOptions = {},
): NdjsonReader<FrameOf<D>> {
  return new NdjsonReader((text, line) => decodeLine(text, line, direction), options);
}

/** Reads frames from a byte stream, yielding a result per non-blank line until the stream ends. */
export async function* readFrames<D extends Direction | 'any'>(
  source: AsyncIterable<Uint8Array | string>,
  direction: D,
  options: NdjsonReaderOptions = {},
): AsyncGenerator<DecodeResult<FrameOf<D>>> {
  const reader = createFrameReader(direction, options);
  for await (const chunk of source) {
    yield* reader.push(typeof chunk === 'string' ? Buffer.from(chunk, 'utf8') : chunk);
  }
  yield* reader.end();
}
