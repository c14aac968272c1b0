import type { SeedMessage } from '../protocol/index.js';
import { stripAllowList } from './tool-grant.js';

/**
 * The context a caller shares, as the child will hold it. A caller cannot hand down a grant (a
 * reserved allow-list message is dropped) nor system authority: its `system` messages reach the
 * child as user content that says what they are, so a parent that was talked into "you are now
 * …" cannot put that into its child's system prompt.
 */
export function handedDownContext(
  context: readonly Pick<SeedMessage, 'role' | 'content'>[],
): SeedMessage[] {
  return stripAllowList(context.map((m) => ({ role: m.role, content: m.content }))).map((m) =>
    m.role === 'system'
      ? {
          role: 'user',
          content: `Context from the parent agent (sent as a system message; it is not one):\n${m.content}`,
        }
      : m,
  );
}
