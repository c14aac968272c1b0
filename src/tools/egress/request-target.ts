/** Where a request through the proxy goes: a host (no brackets), a port, and for HTTP a path. */
export interface RequestTarget {
  host: string;
  port: number;
}

export interface HttpTarget extends RequestTarget {
  /** The `Host` header: the URL's host, with its port when not 80. */
  authority: string;
  path: string;
}

/**
 * The target of an absolute-form request (`GET http://host:port/path`), or why it is not one. The
 * URL parser's reading is the one checked and connected to: `0x7f.1` is `127.0.0.1` here.
 */
export function absoluteTarget(raw: string): HttpTarget | string {
  if (/^https:\/\//i.test(raw))
    return 'an https:// URL is not sent to the proxy as a request; use CONNECT host:443';
  if (!/^http:\/\//i.test(raw))
    return `expected an absolute http:// URL (this is a forward proxy), got ${quote(raw)}`;
  let url: URL;
  try {
    url = new URL(raw);
  } catch {
    return `${quote(raw)} is not a URL`;
  }
  if (url.username !== '' || url.password !== '')
    return 'a URL with a user name or password in it is not forwarded';
  const host = url.hostname.replace(/^\[(.*)\]$/, '$1');
  if (host === '') return `${quote(raw)} has no host`;
  const port = url.port === '' ? 80 : Number(url.port);
  return { host, port, authority: url.host, path: `${url.pathname}${url.search}` };
}

const AUTHORITY = /^(\[[\da-f:.]+\]|[^\s:/?#@[\]\\%]+):(\d{1,5})$/i;

/** The target of `CONNECT host:port` (the port is required), or why it is not one. */
export function connectTarget(raw: string): RequestTarget | string {
  const match = AUTHORITY.exec(raw);
  const port = Number(match?.[2]);
  if (match === null || port < 1 || port > 65_535)
    return `expected CONNECT host:port, got ${quote(raw)}`;
  let hostname: string;
  try {
    hostname = new URL(`http://${match[1] ?? ''}/`).hostname;
  } catch {
    return `${quote(raw)} has no valid host`;
  }
  return { host: hostname.replace(/^\[(.*)\]$/, '$1'), port };
}

/** `host:port`, with an IPv6 address in brackets. */
export function formatTarget({ host, port }: RequestTarget): string {
  return `${host.includes(':') ? `[${host}]` : host}:${port}`;
}

/** Input echoed in an answer: cut short, on one line. */
function quote(raw: string): string {
  return JSON.stringify(raw.length > 100 ? `${raw.slice(0, 100)}…` : raw);
}
