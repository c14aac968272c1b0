import { readdirSync, readFileSync } from 'node:fs';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { describe, expect, it } from 'vitest';

const root = fileURLToPath(new URL('../../', import.meta.url));
const doc = readFileSync(path.join(root, 'docs/architecture.md'), 'utf8');

function sourceFiles(dir: string): string[] {
  return readdirSync(dir, { withFileTypes: true }).flatMap((entry) =>
    entry.isDirectory()
      ? sourceFiles(path.join(dir, entry.name))
      : entry.name.endsWith('.ts')
        ? [path.relative(root, path.join(dir, entry.name))]
        : [],
  );
}

const files = sourceFiles(path.join(root, 'src'));
const code = files.map((file) => readFileSync(path.join(root, file), 'utf8')).join('\n');

/** Every `code span` of the section named `heading`. */
function spans(heading: string): string[] {
  const start = doc.indexOf(`## ${heading}`);
  const end = doc.indexOf('\n## ', start + 1);
  const section = doc.slice(start, end === -1 ? undefined : end);
  return [...section.matchAll(/`([^`]+)`/g)].map((match) => match[1] ?? '');
}

describe('docs/architecture.md', () => {
  it('names, on the path of a delegation, only files and functions the code has', () => {
    const named = spans('The path of a delegation');
    expect(named.length).toBeGreaterThan(20);
    const paths = named.filter((span) => span.endsWith('.ts'));
    const missingFiles = paths.filter((p) => !files.some((file) => file.endsWith(p)));
    expect(missingFiles).toEqual([]);
    // `Class.method`, `Class#private`, `function`: the last name is defined somewhere in src/.
    const symbols = named.filter((span) => /^[A-Za-z]+(?:[.#][A-Za-z]+)?$/.test(span));
    const missingSymbols = symbols.filter((symbol) => {
      const name = symbol.split(/[.#]/).pop() ?? '';
      const defined = new RegExp(
        `(?:class|function|interface|const|type) ${name}\\b|^\\s+(?:async |readonly )?#?${name}[(:]|\\b${name}: \\(`,
        'm',
      );
      return !defined.test(code);
    });
    expect(missingSymbols).toEqual([]);
  });

  it('lists every folder of src/ in its layers', () => {
    const folders = readdirSync(path.join(root, 'src'), { withFileTypes: true })
      .filter((entry) => entry.isDirectory())
      .map((entry) => `${entry.name}/`);
    const listed = spans('Layers');
    expect(folders.filter((folder) => !listed.includes(folder))).toEqual([]);
  });
});
