import path from 'node:path';
import type { Message, Part } from '@a2a-js/sdk';
import { ContentTypeNotSupportedError, RequestMalformedError } from '@a2a-js/sdk/errors';
import type { SavedFile } from './task-inbox.js';

/** The largest file part taken by default (`[serve] max_file_bytes`): 1 MiB. */
export const DEFAULT_MAX_FILE_BYTES = 1024 * 1024;

/** A file a caller sent inline, checked and not yet saved. */
export interface IncomingFile {
  /** The caller's name for it (`filename`), possibly empty; never used as a path as it is. */
  filename: string;
  mediaType: string;
  bytes: Buffer;
}

/** What a message gives a task: its text (text parts, data parts as JSON) and its files. */
export interface MessageInput {
  text: string;
  files: IncomingFile[];
}

/** Media types of text that are not `text/*`. */
const TEXT_MEDIA_TYPES = new Set([
  'application/json',
  'application/ld+json',
  'application/x-ndjson',
  'application/xml',
  'application/yaml',
  'application/x-yaml',
  'application/toml',
  'application/javascript',
  'application/typescript',
  'application/x-sh',
  'application/sql',
  'application/csv',
  'application/graphql',
]);

/** Extensions that say "text" when the media type says nothing (absent, or octet-stream). */
const TEXT_EXTENSIONS = new Set(
  (
    '.txt .md .markdown .rst .csv .tsv .json .jsonl .ndjson .yaml .yml .toml .xml .html .htm ' +
    '.css .js .mjs .cjs .ts .tsx .jsx .py .rb .go .rs .java .kt .c .h .cc .cpp .hpp .cs .sh ' +
    '.sql .ini .cfg .conf .env .log .diff .patch .tex .svg'
  ).split(' '),
);

/**
 * Reads a message's parts, checking every one before anything is saved or started: text parts
 * are the text, data parts join it as JSON, file parts with inline bytes of a text media type
 * (or a text extension) are taken up to `maxFileBytes` each. A file given by URL is not fetched,
 * and any other media type (an image, a binary) is refused: ContentTypeNotSupportedError, naming
 * it. `allowFiles: false` (a reply to a question) refuses file parts too.
 */
export function readMessage(
  message: Message,
  limits: { maxFileBytes: number; allowFiles: boolean },
): MessageInput {
  const texts: string[] = [];
  const files: IncomingFile[] = [];
  for (const [index, part] of message.parts.entries()) {
    const content = part.content;
    if (content === undefined)
      throw new RequestMalformedError(`Part ${index} of the message has no content.`);
    switch (content.$case) {
      case 'text':
        texts.push(content.value);
        break;
      case 'data':
        texts.push(JSON.stringify(content.value));
        break;
      case 'url':
        throw new ContentTypeNotSupportedError(
          `Part ${index} of the message is a file given by URL (${describe(part)}); this server does not fetch URL file parts: send the file's bytes inline (\`raw\`) or its text.`,
        );
      case 'raw':
        if (!limits.allowFiles)
          throw new ContentTypeNotSupportedError(
            `Part ${index} of the message is a file (${describe(part)}); a reply to a question takes text and data parts only.`,
          );
        files.push(checkedFile(index, part, content.value, limits.maxFileBytes));
        break;
    }
  }
  return { text: texts.filter((text) => text.trim() !== '').join('\n'), files };
}

/** A task's instruction: the message's text, then where each file it sent was saved. */
export function taskInstruction(text: string, saved: readonly SavedFile[]): string {
  if (saved.length === 0) return text;
  const lines = saved.map(
    (file) =>
      `- ${file.path} (${file.mediaType === '' ? 'text' : file.mediaType}, ${file.bytes} bytes)`,
  );
  return [text, 'The caller sent these files with the task (read them with fs.read):', ...lines]
    .filter((line) => line !== '')
    .join('\n');
}

function checkedFile(index: number, part: Part, bytes: Buffer, maxFileBytes: number): IncomingFile {
  if (!isTextLike(part.mediaType, part.filename))
    throw new ContentTypeNotSupportedError(
      `Part ${index} of the message is a file of media type \`${part.mediaType === '' ? '(none)' : part.mediaType}\`${part.filename === '' ? '' : ` (\`${part.filename}\`)`}, which this server does not take: it takes text files (text/*, application/json, application/xml, application/yaml, …) and data parts.`,
    );
  if (bytes.length > maxFileBytes)
    throw new RequestMalformedError(
      `Part ${index} of the message is a file of ${bytes.length} bytes (${describe(part)}); this server takes files of at most ${maxFileBytes} bytes (\`[serve] max_file_bytes\`).`,
    );
  try {
    new TextDecoder('utf-8', { fatal: true }).decode(bytes);
  } catch {
    throw new ContentTypeNotSupportedError(
      `Part ${index} of the message is a file declared as text (${describe(part)}) whose bytes are not UTF-8 text.`,
    );
  }
  return { filename: part.filename, mediaType: part.mediaType, bytes };
}

/** Text a node can read as it is: `text/*`, the text `application/` types, `+json`/`+xml`/`+yaml`. */
function isTextLike(mediaType: string, filename: string): boolean {
  const type = (mediaType.split(';')[0] ?? '').trim().toLowerCase();
  if (type.startsWith('text/') || TEXT_MEDIA_TYPES.has(type) || /\+(json|xml|yaml)$/.test(type))
    return true;
  if (type === '' || type === 'application/octet-stream')
    return TEXT_EXTENSIONS.has(path.extname(filename).toLowerCase());
  return false;
}

function describe(part: Part): string {
  const type = part.mediaType === '' ? 'no media type' : `media type \`${part.mediaType}\``;
  return part.filename === '' ? type : `\`${part.filename}\`, ${type}`;
}
