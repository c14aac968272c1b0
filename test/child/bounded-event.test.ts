import { describe, expect, it } from 'vitest';
import { boundedEvent } from '../../src/child/bounded-event.js';
import { CHILD_BOUNDS } from '../../src/protocol/index.js';
import { ChildBounds } from '../../src/supervisor/node/child-bounds.js';

/** Whether the supervisor takes every set of fields as an event of this name. */
function admitted(event: string, list: Record<string, unknown>[]): boolean {
  const bounds = new ChildBounds();
  return list.every((fields) => bounds.admit({ type: 'event', event, fields }) === undefined);
}

const BIG = CHILD_BOUNDS.fieldsChars;

describe('boundedEvent', () => {
  it('sends an event within the bound as it is', () => {
    const fields = { id: 'c1', name: 'fs.write', args: { content: 'short' } };
    expect(boundedEvent('tool.call', fields)).toEqual([fields]);
  });

  it.each([
    ['plain text', 'a'.repeat(BIG * 2)],
    ['text of quotes', '"'.repeat(BIG)],
    ['control characters', '\u0001'.repeat(BIG)],
    ['emoji', '😀'.repeat(BIG)],
  ])('cuts a text.delta of %s into deltas that add up to it', (_name, text) => {
    const list = boundedEvent('text.delta', { step: 3, text });
    expect(list.length).toBeGreaterThan(1);
    expect(list.map((f) => f.text).join('')).toBe(text);
    expect(list.every((f) => f.step === 3)).toBe(true);
    expect(admitted('text.delta', list)).toBe(true);
  });

  it.each([
    [
      'a tool call with large arguments',
      'tool.call',
      { id: 'c1', name: 'fs.write', args: { path: 'x', content: 'b"\\'.repeat(BIG) } },
      'args',
    ],
    [
      'a tool result with large content',
      'tool.result',
      { id: 'c1', name: 'fs.read', is_error: false, content: 'c'.repeat(BIG * 3) },
      'content',
    ],
    [
      'a model call whose text is logged',
      'model.call',
      { step: 1, model: 'm', text: 't'.repeat(BIG + 1) },
      'text',
    ],
  ])('shortens %s within the bound, saying how much was cut', (_name, event, fields, key) => {
    const [out, ...rest] = boundedEvent(event, fields);
    expect(rest).toEqual([]);
    expect(out?.truncated).toBe(true);
    expect(out?.[key]).toMatch(/… \[\d+ characters cut: past the event bound\]$/);
    // The small fields are kept as they were.
    for (const [name, value] of Object.entries(fields))
      if (name !== key) expect(out?.[name]).toEqual(value);
    expect(admitted(event, [out ?? {}])).toBe(true);
  });
});
