import { describe, expect, it } from 'vitest';
import { specialAddress } from '../../src/authority/special-addresses.js';
import { webhookUrlProblem } from '../../src/authority/webhook-url.js';

describe('specialAddress', () => {
  it.each([
    // IPv4-compatible IPv6 (::/96), in every spelling: the URL parser writes them all `::7f00:1`.
    ['::127.0.0.1', /IPv4-compatible address \(deprecated; it embeds 127\.0\.0\.1\)/],
    ['[::127.0.0.1]', /IPv4-compatible address \(deprecated; it embeds 127\.0\.0\.1\)/],
    ['::7f00:1', /IPv4-compatible address \(deprecated; it embeds 127\.0\.0\.1\)/],
    ['[::7f00:1]', /IPv4-compatible address \(deprecated; it embeds 127\.0\.0\.1\)/],
    ['0:0:0:0:0:0:127.0.0.1', /embeds 127\.0\.0\.1/],
    ['0000:0000:0000:0000:0000:0000:7f00:0001', /embeds 127\.0\.0\.1/],
    ['::a9fe:a9fe', /IPv4-compatible address \(deprecated; it embeds 169\.254\.169\.254\)/],
    ['::169.254.169.254', /embeds 169\.254\.169\.254/],
    ['::a00:1', /embeds 10\.0\.0\.1/],
    // Even a public IPv4 address is not reached this deprecated way.
    ['::8.8.8.8', /IPv4-compatible address \(deprecated; it embeds 8\.8\.8\.8\)/],
    ['::808:808', /embeds 8\.8\.8\.8/],
    // IPv4-mapped: the IPv4 address it is.
    ['::ffff:127.0.0.1', /a loopback address/],
    ['::ffff:7f00:1', /a loopback address/],
    ['[::ffff:a9fe:a9fe]', /link-local address \(cloud metadata/],
    ['::ffff:0:7f00:1', /a translated address/],
    // NAT64, well-known and local-use prefixes.
    ['64:ff9b::7f00:1', /a NAT64 address/],
    ['64:ff9b::a9fe:a9fe', /a NAT64 address/],
    ['64:ff9b::8.8.8.8', /a NAT64 address/],
    ['64:ff9b:1::1', /a NAT64 address/],
    // 6to4 and Teredo embed IPv4 too.
    ['2002:7f00:1::', /a 6to4 address/],
    ['2001::1', /a Teredo address/],
    // The ones ipaddr.js already knew.
    ['::', /the unspecified address/],
    ['::1', /a loopback address/],
    ['127.0.0.1', /a loopback address/],
    ['169.254.169.254', /link-local address \(cloud metadata/],
    ['fe80::1', /link-local/],
    ['fd00::1', /unique local/],
    ['not-an-address', /not an IP address/],
  ])('%s is special: %s', (address, words) => {
    expect(specialAddress(address)).toMatch(words);
  });

  it.each(['8.8.8.8', '2606:4700:4700::1111', '::ffff:8.8.8.8', '1.1.1.1'])(
    '%s is an ordinary public address',
    (address) => {
      expect(specialAddress(address)).toBeUndefined();
    },
  );
});

describe('webhookUrlProblem: the rules of a webhook URL that need no lookup', () => {
  it.each([
    ['ftp://hooks.example.com/gate', [], /only http: and https: URLs are called, not `ftp:`/],
    ['file:///etc/passwd', [], /only http: and https:/],
    ['https://user:pass@hooks.example.com/', [], /user name or password/],
    ['not a url', [], /not a URL/],
    ['http://169.254.169.254/latest/meta-data', [], /169\.254\.169\.254 resolves to a link-local/],
    ['http://127.0.0.1:9000/hook', [], /webhook_allow/],
    ['http://[::127.0.0.1]:9000/hook', [], /IPv4-compatible/],
    ['http://[::ffff:a9fe:a9fe]/', [], /link-local/],
    ['http://127.0.0.1:9000/hook', ['127.0.0.1:9001'], /webhook_allow/],
  ])('refuses %s (allowed: %j)', (url, allow, words) => {
    expect(webhookUrlProblem(url, allow)).toMatch(words);
  });

  it.each([
    ['https://hooks.example.com/gate', []],
    ['http://127.0.0.1:9000/hook', ['127.0.0.1:9000']],
    ['http://127.0.0.1:9000/hook', ['127.0.0.1']],
    // A name is resolved when the server starts, and at each delivery.
    ['http://localhost:9000/hook', []],
  ])('leaves %s (allowed: %j) to the lookup', (url, allow) => {
    expect(webhookUrlProblem(url, allow)).toBeUndefined();
  });
});
