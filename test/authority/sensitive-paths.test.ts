import { describe, expect, it } from 'vitest';
import { SensitiveMatcher } from '../../src/authority/sensitive-paths.js';

describe('SensitiveMatcher', () => {
  const matcher = new SensitiveMatcher(['config/prod.yml']);
  it.each([
    ['.env', true],
    ['app/.env.local', true],
    ['/home/u/.ssh/id_ed25519', true],
    ['/home/u/.ssh/id_ed25519.pub', false],
    ['certs/server.pem', true],
    ['tls/server.key', true],
    ['/home/u/.npmrc', true],
    ['/home/u/.netrc', true],
    ['/home/u/.pgpass', true],
    ['credentials.json', true],
    ['secrets.yaml', true],
    ['/home/u/.aws/credentials', true],
    ['~/.aws/config', true],
    ['/home/u/.config/gcloud/application_default_credentials.json', true],
    ['/home/u/.kube/config', true],
    ['/home/u/.docker/config.json', true],
    ['deploy/config/prod.yml', true],
    ['src/index.ts', false],
    ['README.md', false],
    ['package.json', false],
    ['docs/environment.md', false],
    ['src/keyboard.ts', false],
  ])('%s → %s', async (p, expected) => {
    expect(await matcher.matches(p)).toBe(expected);
  });

  it('finds the sensitive files a command names', async () => {
    expect(await matcher.namedIn('cat .env | grep KEY')).toEqual(['.env']);
    expect(await matcher.namedIn('source ~/.aws/credentials && aws s3 ls')).toEqual([
      '~/.aws/credentials',
    ]);
    expect(await matcher.namedIn('npm test -- --grep env')).toEqual([]);
  });
});
