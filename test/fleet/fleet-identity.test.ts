import { chmodSync, mkdtempSync, statSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { FleetIdentity, FleetPublicKey } from '../../src/fleet/fleet-identity.js';
import {
  privateKeyFile,
  readPrivateKeyFile,
  writePrivateKeyFile,
} from '../../src/fleet/key-file.js';

const dir = mkdtempSync(join(tmpdir(), 'arbor-fleet-identity-'));
let files = 0;
const fresh = (): string => join(dir, `key-${files++}.pem`);

describe('FleetIdentity and FleetPublicKey', () => {
  const { identity, pem } = FleetIdentity.generate();

  it('writes its public key as `ed25519:` and 32 bytes in base64, with a 16-hex-digit id', () => {
    expect(identity.publicKey.text).toMatch(/^ed25519:[A-Za-z0-9+/]{43}=$/);
    expect(identity.publicKey.id).toMatch(/^[0-9a-f]{16}$/);
    const parsed = FleetPublicKey.parse(identity.publicKey.text);
    expect(parsed.id).toBe(identity.publicKey.id);
    expect(FleetIdentity.fromPem(pem, 'test').publicKey.text).toBe(identity.publicKey.text);
  });

  it('verifies its own signature in its scope, and nothing else', () => {
    const signature = identity.sign('job:1', 'body');
    const key = FleetPublicKey.parse(identity.publicKey.text);
    expect(key.verify('job:1', 'body', signature)).toBe(true);
    expect(key.verify('job:2', 'body', signature)).toBe(false);
    expect(key.verify('job:1', 'bodY', signature)).toBe(false);
    expect(key.verify('job:1', 'body', 'not a signature')).toBe(false);
    const other = FleetIdentity.generate().identity;
    expect(other.publicKey.verify('job:1', 'body', signature)).toBe(false);
  });

  it.each([
    ['no prefix', 'AAAA'],
    ['short bytes', 'ed25519:AAAA'],
    ['not base64', `ed25519:${'!'.repeat(44)}`],
    ['an HMAC key', 'test-fleet-key-5b0e1c9a2f7d4e8b9c3a6d1f'],
  ])('refuses a public key with %s', (_, text) => {
    expect(() => FleetPublicKey.parse(text)).toThrow(
      expect.objectContaining({
        code: 'config',
        message: expect.stringMatching(/^Expected/) as unknown,
      }),
    );
  });

  it('refuses a PEM that is not an Ed25519 private key', () => {
    expect(() => FleetIdentity.fromPem('nope', '`k`')).toThrow(
      /Expected `k` to hold a private key/,
    );
  });
});

describe('key files', () => {
  it('writes a key file with mode 0600 and never overwrites one', () => {
    const file = fresh();
    const { identity, pem } = FleetIdentity.generate();
    writePrivateKeyFile(file, pem);
    expect(statSync(file).mode & 0o777).toBe(0o600);
    expect(readPrivateKeyFile(file).publicKey.id).toBe(identity.publicKey.id);
    expect(() => {
      writePrivateKeyFile(file, FleetIdentity.generate().pem);
    }).toThrow(
      expect.objectContaining({
        code: 'usage',
        message: expect.stringContaining('already exists') as unknown,
      }),
    );
    expect(readPrivateKeyFile(file).publicKey.id).toBe(identity.publicKey.id);
  });

  it.each([0o640, 0o604, 0o644, 0o660])(
    'refuses a key file of mode %o, saying how to fix it',
    (mode) => {
      const file = fresh();
      writePrivateKeyFile(file, FleetIdentity.generate().pem);
      chmodSync(file, mode);
      expect(() => readPrivateKeyFile(file)).toThrow(
        expect.objectContaining({
          code: 'config',
          message: expect.stringContaining(`\`chmod 600 ${file}\``) as unknown,
        }),
      );
    },
  );

  it('refuses a key file that is missing, or holds no key', () => {
    expect(() => readPrivateKeyFile(join(dir, 'none'))).toThrow(
      /Cannot read the fleet key .*ENOENT/,
    );
    const file = fresh();
    writeFileSync(file, 'hello', { mode: 0o600 });
    expect(() => readPrivateKeyFile(file)).toThrow(/to hold a private key in PEM/);
  });

  it('finds the key file: the flag, then ARBOR_FLEET_PRIVATE_KEY_FILE, then the config', () => {
    const env = { ARBOR_FLEET_PRIVATE_KEY_FILE: '/env/key' };
    expect(privateKeyFile({ flag: '/flag/key', config: 'file:/config/key' }, env)).toBe(
      '/flag/key',
    );
    expect(privateKeyFile({ config: 'file:/config/key' }, env)).toBe('/env/key');
    expect(privateKeyFile({ config: 'file:/config/key' }, {})).toBe('/config/key');
    expect(privateKeyFile({}, {})).toBeUndefined();
    expect(() => privateKeyFile({ config: '-----BEGIN PRIVATE KEY-----' }, {})).toThrow(
      /Expected a fleet key as `file:\/absolute\/path`/,
    );
  });
});
