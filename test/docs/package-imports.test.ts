import { readdirSync, readFileSync } from 'node:fs';
import { describe, expect, it } from 'vitest';

const root = new URL('../../', import.meta.url);
const exported = Object.keys(
  (JSON.parse(readFileSync(new URL('package.json', root), 'utf8')) as { exports: object }).exports,
).map((key) => (key === '.' ? 'arbor' : `arbor/${key.slice(2)}`));

/** The README and every page of the docs. */
function docFiles(): string[] {
  const files = ['README.md', ...readdirSync(new URL('docs/', root)).map((f) => `docs/${f}`)];
  return files.filter((file) => file.endsWith('.md'));
}

/** Every `from 'arbor…'` in the README and the docs, with the file it is in. */
function packageImports(): [string, string][] {
  return docFiles().flatMap((file) =>
    [...readFileSync(new URL(file, root), 'utf8').matchAll(/from '(arbor(?:\/[^']*)?)'/g)].map(
      (match): [string, string] => [file, match[1] ?? ''],
    ),
  );
}

describe('the docs show the library as it behaves', () => {
  it("print a run's streamed answer by node: every node of the tree sends text.delta", () => {
    const printing = docFiles().flatMap((file) =>
      readFileSync(new URL(file, root), 'utf8')
        .split('\n')
        .filter((line) => line.includes("'text.delta'") && line.includes('process.stdout.write'))
        .map((line): [string, string] => [file, line.trim()]),
    );
    expect(printing.length).toBeGreaterThan(0);
    expect(printing.filter(([, line]) => !line.includes('event.path'))).toEqual([]);
  });
});

describe('the docs import arbor only through what the package exports', () => {
  it('names no internal path', () => {
    const found = packageImports();
    expect(found.length).toBeGreaterThan(0);
    expect(found.filter(([, specifier]) => !exported.includes(specifier))).toEqual([]);
  });
});
