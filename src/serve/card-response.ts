import { createHash } from 'node:crypto';

/** How long a client or cache may keep the card before asking again: five minutes. */
const CARD_MAX_AGE_S = 300;

/**
 * The agent card's HTTP answer, cacheable: `Cache-Control: public, max-age=300`, a strong `ETag`
 * (a hash of the JSON served, which differs by the `Host` the card names), and `Last-Modified`
 * (when the server started: the card changes only with its configuration). A request whose
 * `If-None-Match` names the tag (or `*`), or, without one, whose `If-Modified-Since` is not
 * before the start, gets 304 with no body.
 */
export function cardResponse(request: Request, card: unknown, startedAt: Date): Response {
  const body = JSON.stringify(card);
  const etag = `"${createHash('sha256').update(body, 'utf8').digest('base64url')}"`;
  const headers = {
    'cache-control': `public, max-age=${CARD_MAX_AGE_S}`,
    etag,
    'last-modified': startedAt.toUTCString(),
  };
  const ifNoneMatch = request.headers.get('if-none-match');
  if (ifNoneMatch !== null) {
    // RFC 9110 §13.1.2: If-None-Match compares weakly, so `W/"…"` matches too.
    const tags = ifNoneMatch.split(',').map((tag) => tag.trim().replace(/^W\//, ''));
    if (tags.includes('*') || tags.includes(etag))
      return new Response(null, { status: 304, headers });
  } else {
    const since = Date.parse(request.headers.get('if-modified-since') ?? '');
    // HTTP dates have whole seconds: the start is compared at that precision.
    if (!Number.isNaN(since) && since >= Math.floor(startedAt.getTime() / 1000) * 1000)
      return new Response(null, { status: 304, headers });
  }
  return new Response(body, {
    status: 200,
    headers: { ...headers, 'content-type': 'application/json' },
  });
}
