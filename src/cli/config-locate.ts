/** A place in a text, both counted from 1. Columns count UTF-16 code units, as editors do. */
export interface TextPosition {
  line: number;
  column: number;
}

/** One step of a value's path, as zod reports it: a key, or an index into an array. */
type Segment = string | number;

/**
 * Finds where a value's path (`security.policy[2].match.tool`, as zod reports it) is written in a
 * TOML text: at its key (dotted or in an inline table), at its table header (`[security]`, or the
 * third `[[security.policy]]` for `security.policy[2]`), or at an array element. A path that is not
 * written, such as a required key that is missing, falls back to the nearest enclosing key or
 * table that is; the root is line 1, column 1.
 *
 * A parsed TOML document keeps no positions, hence this scanner. It reads only text that has
 * already parsed, so it trusts the syntax and only has to skip strings and comments correctly.
 */
export class TomlLocator {
  /** Where each path is first written, as an offset into the text, keyed by `pathKey`. */
  readonly #offsets: Map<string, number>;
  readonly #lineStarts: number[] = [0];

  constructor(text: string) {
    for (let i = text.indexOf('\n'); i !== -1; i = text.indexOf('\n', i + 1)) {
      this.#lineStarts.push(i + 1);
    }
    this.#offsets = new TomlScanner(text).scan();
  }

  locate(path: readonly PropertyKey[]): TextPosition {
    for (let n = path.length; n > 0; n -= 1) {
      const offset = this.#offsets.get(pathKey(path.slice(0, n)));
      if (offset !== undefined) return this.#positionAt(offset);
    }
    return { line: 1, column: 1 };
  }

  #positionAt(offset: number): TextPosition {
    let low = 0;
    let high = this.#lineStarts.length - 1;
    while (low < high) {
      const middle = Math.ceil((low + high) / 2);
      if ((this.#lineStarts[middle] ?? 0) <= offset) low = middle;
      else high = middle - 1;
    }
    return { line: low + 1, column: offset - (this.#lineStarts[low] ?? 0) + 1 };
  }
}

/** Paths as map keys; JSON keeps `"0"` (a key) apart from `0` (an index) and keys with dots whole. */
function pathKey(path: readonly PropertyKey[]): string {
  return JSON.stringify(path.map((key) => (typeof key === 'number' ? key : String(key))));
}

interface KeyPart {
  name: string;
  offset: number;
}

const BARE_KEY_CHAR = /[A-Za-z0-9_-]/;
const SCALAR_END = ',]}#\r\n';
const ESCAPES: Record<string, string> = {
  b: '\b',
  t: '\t',
  n: '\n',
  f: '\f',
  r: '\r',
  e: '\x1b',
  '"': '"',
  '\\': '\\',
};

/** One pass over the text, recording the offset of every key, header and array element. */
class TomlScanner {
  readonly #text: string;
  #i = 0;
  readonly #offsets = new Map<string, number>();
  /** How many `[[…]]` headers each array of tables has had so far, keyed by `pathKey`. */
  readonly #tableCounts = new Map<string, number>();

  constructor(text: string) {
    this.#text = text;
  }

  scan(): Map<string, number> {
    let table: Segment[] = [];
    for (;;) {
      this.#skipBlank();
      if (this.#i >= this.#text.length) break;
      const before = this.#i;
      if (this.#char() === '[') table = this.#header();
      else this.#keyValue(table);
      if (this.#i === before) this.#i += 1;
    }
    return this.#offsets;
  }

  /** `[a.b]` or `[[a.b]]`: the path of the table that the lines below fill. */
  #header(): Segment[] {
    const start = this.#i;
    const isArray = this.#text.startsWith('[[', start);
    this.#i += isArray ? 2 : 1;
    const parts = this.#key();
    this.#i += isArray ? 2 : 1;
    const path: Segment[] = [];
    parts.forEach(({ name, offset }, n) => {
      path.push(name);
      const isLast = n === parts.length - 1;
      // The table (or array) a header names is at the header; the tables it implies, at their names.
      this.#mark(path, isLast ? start : offset);
      // `[a.b]` after `[[a]]` names a table inside the last element of `a`.
      const count = isLast ? undefined : this.#tableCounts.get(pathKey(path));
      if (count !== undefined) path.push(count - 1);
    });
    if (!isArray) return path;
    const index = this.#tableCounts.get(pathKey(path)) ?? 0;
    this.#tableCounts.set(pathKey(path), index + 1);
    path.push(index);
    this.#mark(path, start);
    return path;
  }

  /** `a.b = value`, at the top level of `table` or inside an inline table. */
  #keyValue(table: readonly Segment[]): void {
    const path = [...table];
    for (const { name, offset } of this.#key()) {
      path.push(name);
      this.#mark(path, offset);
    }
    if (this.#char() === '=') this.#i += 1;
    this.#skipSpaces();
    this.#value(path);
  }

  /** A dotted key: bare, `"basic"` or `'literal'` parts, with spaces around the dots. */
  #key(): KeyPart[] {
    const parts: KeyPart[] = [];
    for (;;) {
      this.#skipSpaces();
      parts.push({ offset: this.#i, name: this.#keyPart() });
      this.#skipSpaces();
      if (this.#char() !== '.') return parts;
      this.#i += 1;
    }
  }

  #keyPart(): string {
    const quote = this.#char();
    if (quote === '"' || quote === "'") {
      const start = this.#i;
      this.#skipString();
      const raw = this.#text.slice(start + 1, this.#i - 1);
      return quote === '"' ? unescapeBasic(raw) : raw;
    }
    const start = this.#i;
    while (BARE_KEY_CHAR.test(this.#char())) this.#i += 1;
    return this.#text.slice(start, this.#i);
  }

  #value(path: readonly Segment[]): void {
    const first = this.#char();
    if (first === '"' || first === "'") this.#skipString();
    else if (first === '[' || first === '{') this.#list(path, first === '{');
    // Numbers, booleans and dates (which may hold a space) run to a delimiter.
    else while (this.#i < this.#text.length && !SCALAR_END.includes(this.#char())) this.#i += 1;
  }

  #element(path: Segment[]): void {
    this.#mark(path, this.#i);
    this.#value(path);
  }

  /** The items of an array `[…]` (elements of `path`) or an inline table `{…}` (keys of `path`). */
  #list(path: readonly Segment[], isTable: boolean): void {
    const close = isTable ? '}' : ']';
    this.#i += 1;
    let index = 0;
    for (;;) {
      this.#skipBlank();
      const char = this.#char();
      if (char === '' || char === close) break;
      const before = this.#i;
      if (char === ',') this.#i += 1;
      else if (isTable) this.#keyValue(path);
      else this.#element([...path, index++]);
      if (this.#i === before) this.#i += 1;
    }
    this.#i += 1;
  }

  /** Skips a basic, literal or multi-line string, leaving `#i` just past its closing quote. */
  #skipString(): void {
    const quote = this.#char();
    const triple = quote.repeat(3);
    const isMultiline = this.#text.startsWith(triple, this.#i);
    this.#i += isMultiline ? 3 : 1;
    while (this.#i < this.#text.length) {
      const char = this.#char();
      if (quote === '"' && char === '\\') {
        this.#i += 2;
      } else if (!isMultiline && (char === quote || char === '\n')) {
        this.#i += 1;
        return;
      } else if (isMultiline && this.#text.startsWith(triple, this.#i)) {
        this.#i += 3;
        // Up to two more quotes are content: `"""say "hi""""` ends with `hi"`.
        for (let extra = 0; extra < 2 && this.#char() === quote; extra += 1) this.#i += 1;
        return;
      } else {
        this.#i += 1;
      }
    }
  }

  /** Skips spaces, newlines and comments. */
  #skipBlank(): void {
    for (;;) {
      this.#skipSpaces();
      const char = this.#char();
      if (char === '#') {
        while (this.#i < this.#text.length && this.#char() !== '\n') this.#i += 1;
      } else if (char === '\n' || char === '\r') {
        this.#i += 1;
      } else {
        return;
      }
    }
  }

  #skipSpaces(): void {
    while (this.#char() === ' ' || this.#char() === '\t') this.#i += 1;
  }

  #char(): string {
    return this.#text.charAt(this.#i);
  }

  /** The first place a path is written wins: `[limits]` twice points at the first. */
  #mark(path: readonly Segment[], offset: number): void {
    const key = pathKey(path);
    if (!this.#offsets.has(key)) this.#offsets.set(key, offset);
  }
}

function unescapeBasic(raw: string): string {
  return raw.replace(
    /\\(u[0-9A-Fa-f]{4}|U[0-9A-Fa-f]{8}|x[0-9A-Fa-f]{2}|.)/g,
    (_match, escape: string) =>
      escape.length > 1
        ? String.fromCodePoint(Number.parseInt(escape.slice(1), 16))
        : (ESCAPES[escape] ?? escape),
  );
}
