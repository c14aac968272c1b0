import { fileURLToPath } from 'node:url';
import { describe, expect, it } from 'vitest';
import { tempDb } from '../helpers/arbor-process.js';
import { runArbor } from '../helpers/run-arbor.js';

const DEMO = fileURLToPath(new URL('../../examples/playbooks/demo.json', import.meta.url));

describe('first run without an API key', () => {
  it('runs against the scripted model and says so', async () => {
    const { code, stdout, stderr } = await runArbor(['run', '--mock-llm', DEMO, 'Say hello.'], {
      env: { ARBOR_DB: tempDb(), ARBOR_API_KEY: '', OPENAI_API_KEY: '' },
    });
    expect(code).toBe(0);
    expect(stdout).toContain("Hello from arbor's scripted model");
    expect(stderr).toContain('the model is SCRIPTED by');
  });

  it('exits 2 naming a playbook that does not exist', async () => {
    const { code, stderr } = await runArbor(['run', '--mock-llm', '/no/such/playbook.json', 'x'], {
      env: { ARBOR_DB: tempDb() },
    });
    expect(code).toBe(2);
    expect(stderr).toContain('/no/such/playbook.json');
  });
});
