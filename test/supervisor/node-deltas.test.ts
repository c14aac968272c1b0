import { describe, expect, it } from 'vitest';
import { SecretScrubber } from '../../src/protocol/index.js';
import { NodeDeltas, type TextDelta } from '../../src/supervisor/node/node-deltas.js';

const KEY = 'arbk-7Qm2Xv9LpR4tN8wZc3Hy';

function deltas(): { sent: TextDelta[]; stream: NodeDeltas } {
  const sent: TextDelta[] = [];
  return { sent, stream: new NodeDeltas(new SecretScrubber([KEY]), (delta) => sent.push(delta)) };
}

describe('NodeDeltas: a node’s streamed answer on its way to watchers', () => {
  it('holds a key’s beginning back and releases it scrubbed, in the step it belongs to', () => {
    const { sent, stream } = deltas();
    stream.push({ step: 1, text: 'key: arbk-7Qm' });
    stream.push({ step: 1, text: '2Xv9LpR4tN8wZc3Hy done' });
    expect(sent).toEqual([
      { step: 1, text: 'key: ' },
      { step: 1, text: '[redacted] done' },
    ]);
  });

  it('releases what it held when the step ends, before the next step’s text', () => {
    const { sent, stream } = deltas();
    stream.push({ step: 1, text: 'tail arbk-7' });
    stream.push({ step: 2, text: 'next' });
    stream.end(false);
    expect(sent).toEqual([
      { step: 1, text: 'tail ' },
      { step: 1, text: 'arbk-7' },
      { step: 2, text: 'next' },
    ]);
  });

  it('drops what it held when the stream is abandoned (text.reset)', () => {
    const { sent, stream } = deltas();
    stream.push({ step: 1, text: 'broken arbk-7Qm2' });
    stream.end(true);
    stream.push({ step: 1, text: 'again' });
    expect(sent.map((delta) => delta.text)).toEqual(['broken ', 'again']);
  });

  it('passes on only the step and the text of a delta', () => {
    const { sent, stream } = deltas();
    stream.push({ step: 1, text: 'hi ', extra: KEY });
    stream.push({ step: 1, text: 42 });
    expect(sent).toEqual([{ step: 1, text: 'hi ' }]);
  });
});
