import { describe, expect, it } from 'vitest';
import {
  childCommand,
  childEntryPath,
  childEnv,
  classify,
  killLadder,
  timingFromEnv,
  Tree,
  type LadderTarget,
} from '../../src/supervisor/index.js';
import { testPayload } from '../helpers/payloads.js';

describe('classify', () => {
  const limits = { progressTimeoutMs: 100, pongTimeoutMs: 10 };
  it.each([
    [
      'exited',
      { exited: true, deadlineAt: undefined, lastProgressAt: 1000, lastPongAt: 1000 },
      'dead',
    ],
    [
      'past deadline even if busy',
      { exited: false, deadlineAt: 900, lastProgressAt: 1000, lastPongAt: 1000 },
      'deadline_exceeded',
    ],
    [
      'recent progress',
      { exited: false, deadlineAt: undefined, lastProgressAt: 950, lastPongAt: 0 },
      'healthy',
    ],
    [
      'no progress but answering pings',
      { exited: false, deadlineAt: undefined, lastProgressAt: 0, lastPongAt: 995 },
      'busy',
    ],
    [
      'neither',
      { exited: false, deadlineAt: undefined, lastProgressAt: 0, lastPongAt: 0 },
      'stuck',
    ],
  ])('%s', (_, state, health) => {
    expect(classify({ now: 1000, ...state }, limits)).toBe(health);
  });
});

describe('killLadder', () => {
  function target(exitOn: 'cancel' | 'SIGTERM' | 'never'): LadderTarget & { sent: string[] } {
    let exited = false;
    let resolveExit!: () => void;
    const exit = new Promise<void>((resolve) => (resolveExit = resolve));
    const sent: string[] = [];
    const die = (): void => {
      exited = true;
      resolveExit();
    };
    return {
      sent,
      sendCancel: () => {
        sent.push('cancel');
        if (exitOn === 'cancel') setTimeout(die, 5);
        return true;
      },
      signalGroup: (signal) => {
        sent.push(signal);
        if (signal === 'SIGKILL' || exitOn === 'SIGTERM') setTimeout(die, 5);
      },
      exited: exit,
      hasExited: () => exited,
    };
  }
  const options = { reason: 'test', cancelGraceMs: 100, termGraceMs: 100, killWaitMs: 100 };

  it('stops at the first rung that works and records whether it forced', async () => {
    const graceful = target('cancel');
    expect(await killLadder(graceful, options)).toMatchObject({
      forced: false,
      exited: true,
      steps: [{ step: 'cancel' }],
    });
    const term = target('SIGTERM');
    expect((await killLadder(term, options)).steps.map((s) => s.step)).toEqual([
      'cancel',
      'sigterm',
    ]);
    const stubborn = target('never');
    const outcome = await killLadder(stubborn, options);
    expect(outcome.steps.map((s) => s.step)).toEqual(['cancel', 'sigterm', 'sigkill']);
    expect(outcome).toMatchObject({ forced: true, exited: true, reason: 'test' });
  });

  it('goes straight to SIGKILL when forced', async () => {
    const t = target('never');
    expect((await killLadder(t, { ...options, force: true })).steps.map((s) => s.step)).toEqual([
      'sigkill',
    ]);
    expect(t.sent).toEqual(['SIGKILL']);
  });
});

describe('Tree', () => {
  it('mints ids, paths and depths from the parent record', () => {
    const tree = new Tree();
    const root = tree.mintRoot('root', 0);
    const a = tree.mintChild(root.id, 'a', 0);
    const b = tree.mintChild(root.id, 'b', 0);
    const a1 = tree.mintChild(a.id, 'a1', 0);
    expect([root, a, b, a1].map((n) => [n.id, n.path, n.depth])).toEqual([
      ['n0', '0', 0],
      ['n1', '0.1', 1],
      ['n2', '0.2', 1],
      ['n3', '0.1.1', 2],
    ]);
    expect(tree.deepestFirst(root.id).map((n) => n.path)).toEqual(['0.1.1', '0.1', '0.2', '0']);
  });
});

describe('childCommand', () => {
  it("runs arbor's child under this Node with no flag (it sets its V8 flags itself)", () => {
    expect(childCommand({})).toEqual({ command: process.execPath, args: [childEntryPath()] });
  });

  it('takes ARBOR_CHILD_COMMAND as given, split on whitespace', () => {
    expect(childCommand({ ARBOR_CHILD_COMMAND: ' python3  child.py --x ' })).toEqual({
      command: 'python3',
      args: ['child.py', '--x'],
    });
  });
});

describe('childEnv', () => {
  it('passes an allow-list and never a credential', () => {
    const env = childEnv(
      {
        PATH: '/bin',
        HOME: '/h',
        ARBOR_API_KEY: 'sk-1',
        OPENAI_API_KEY: 'sk-2',
        AWS_SECRET_ACCESS_KEY: 'x',
        ARBOR_PONG_TIMEOUT_MS: '50',
        ARBOR_GITHUB_TOKEN: 't',
      },
      testPayload({ tls_ca: '/etc/ca.pem' }),
    );
    expect(env).toEqual({
      PATH: '/bin',
      HOME: '/h',
      ARBOR_PONG_TIMEOUT_MS: '50',
      NODE_EXTRA_CA_CERTS: '/etc/ca.pem',
    });
  });
});

describe('timingFromEnv', () => {
  it('overrides defaults and names a bad variable', () => {
    expect(timingFromEnv({ ARBOR_PONG_TIMEOUT_MS: '250' }).pongTimeoutMs).toBe(250);
    expect(() => timingFromEnv({ ARBOR_PROGRESS_TIMEOUT_MS: 'soon' })).toThrow(
      'Expected `ARBOR_PROGRESS_TIMEOUT_MS` to be a non-negative integer, got `soon`.',
    );
  });
});
