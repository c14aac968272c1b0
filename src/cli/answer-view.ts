import type { Writable } from 'node:stream';
import type { SupervisorEvent, Tree } from '../supervisor/index.js';
import type { LiveTree } from './live-tree.js';

/** Save the cursor; back to it, and clear what follows. */
const SAVE = '\u001b[s';
const RESTORE_AND_CLEAR = '\u001b[u\u001b[J';

/**
 * The root's answer as it is written, on a terminal. Each model call's text replaces the last
 * one's (the answer is the last step's text), and a `text.reset` (the stream broke off and is
 * being made again) drops what was shown. Under the live tree it is the tree's answer pane;
 * alone, it is written to stdout in place. `finish` clears it: the answer is then printed whole,
 * as it is when stdout is not a terminal.
 */
export class AnswerView {
  readonly #out: Writable;
  readonly #tree: LiveTree | undefined;
  #text = '';
  #shown = false;

  constructor(out: Writable, tree: LiveTree | undefined) {
    this.#out = out;
    this.#tree = tree;
  }

  onEvent(event: SupervisorEvent, tree: Tree): void {
    if (event.type !== 'event' || tree.get(event.nodeId)?.depth !== 0) return;
    const { event: happened } = event;
    if (happened.type === 'loop.step' || happened.type === 'text.reset') this.#replace('');
    else if (happened.type === 'text.delta') this.#append(happened.text);
  }

  /** Takes the streamed text off the screen. */
  finish(): void {
    this.#replace('');
  }

  #append(text: string): void {
    this.#text += text;
    if (this.#tree !== undefined) {
      this.#tree.setAnswer(this.#text);
      return;
    }
    if (!this.#shown) this.#out.write(SAVE);
    this.#shown = true;
    this.#out.write(text);
  }

  #replace(text: string): void {
    this.#text = text;
    if (this.#tree !== undefined) this.#tree.setAnswer(text);
    else if (this.#shown) {
      this.#out.write(RESTORE_AND_CLEAR);
      this.#shown = false;
    }
  }
}
