import { describe, expect, it } from 'vitest';
import { TomlLocator } from '../../src/cli/config-locate.js';

// Line numbers are in the right margin; the locator must find each path where it is written.
const TEXT = [
  '# arbor config', //                                  1
  'agent.ask_human_fallback = "wait"', //               2
  '[intelligence]', //                                  3
  'model = "m"  # not [a.table]', //                    4
  'endpoints = ["http://a/v1", "http://b/v1"]', //      5
  '', //                                                6
  '[intelligence.prices."gpt-4.1"]', //                 7
  'input_per_mtok = 0.4', //                            8
  '', //                                                9
  '[[security.policy]]', //                             10
  'action = "allow"', //                                11
  '', //                                                12
  '[[security.policy]]   # the second', //              13
  "action = 'ask'", //                                  14
  'match = { tool = "x", caller = ["root", "plan"] }', // 15
  '', //                                                16
  '[[security.policy]]', //                             17
  'reason = """has [[brackets]] and', //                18
  'a = 1 inside"""', //                                 19
  'question = "why # not [x]"', //                      20
  '[ security . policy . match ]', //                   21
  '  tool = 3', //                                      22
].join('\n');

describe('TomlLocator', () => {
  const locator = new TomlLocator(TEXT);

  it.each([
    // A dotted key at the top: each part at its name.
    [['agent'], 2, 1],
    [['agent', 'ask_human_fallback'], 2, 7],
    // A table is at its header; its keys at their names.
    [['intelligence'], 3, 1],
    [['intelligence', 'model'], 4, 1],
    [['intelligence', 'endpoints'], 5, 1],
    [['intelligence', 'endpoints', 1], 5, 29],
    // A quoted key holding a dot is one key.
    [['intelligence', 'prices', 'gpt-4.1'], 7, 1],
    [['intelligence', 'prices', 'gpt-4.1', 'input_per_mtok'], 8, 1],
    // Arrays of tables: the nth `[[…]]` header is element n-1.
    [['security'], 10, 3],
    [['security', 'policy'], 10, 1],
    [['security', 'policy', 0], 10, 1],
    [['security', 'policy', 0, 'action'], 11, 1],
    [['security', 'policy', 1], 13, 1],
    [['security', 'policy', 2], 17, 1],
    // Inline tables and arrays inside them.
    [['security', 'policy', 1, 'match'], 15, 1],
    [['security', 'policy', 1, 'match', 'tool'], 15, 11],
    [['security', 'policy', 1, 'match', 'caller', 1], 15, 41],
    // After a multi-line string and a string holding `#` and brackets; a sub-table of the last
    // element, with spaces in its header.
    [['security', 'policy', 2, 'question'], 20, 1],
    [['security', 'policy', 2, 'match'], 21, 1],
    [['security', 'policy', 2, 'match', 'tool'], 22, 3],
  ])('finds %j at %d:%d', (path, line, column) => {
    expect(locator.locate(path)).toEqual({ line, column });
  });

  it.each([
    // A missing key: its table's header.
    [['security', 'policy', 2, 'on_timeout'], 17, 1],
    [['intelligence', 'prices', 'gpt-4.1', 'output_per_mtok'], 7, 1],
    [['security', 'policy', 0, 'match', 'tool'], 10, 1],
    // Text inside a multi-line string is not a key.
    [['security', 'policy', 2, 'a'], 17, 1],
    // Nothing written at all: the start of the file.
    [['limits', 'max_steps'], 1, 1],
  ])('places missing %j at the nearest enclosing table, %d:%d', (path, line, column) => {
    expect(locator.locate(path)).toEqual({ line, column });
  });

  it('counts columns from the line start with CRLF line ends', () => {
    const crlf = new TomlLocator('[limits]\r\nmax_steps = 1\r\n[store]\r\n  path = "x"\r\n');
    expect(crlf.locate(['store', 'path'])).toEqual({ line: 4, column: 3 });
    expect(crlf.locate(['limits', 'max_steps'])).toEqual({ line: 2, column: 1 });
  });
});
