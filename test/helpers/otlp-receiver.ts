import { createServer, type IncomingMessage, type ServerResponse } from 'node:http';
import type { AddressInfo } from 'node:net';
import { afterEach } from 'vitest';

export interface OtlpValue {
  stringValue?: string;
  intValue?: string | number;
  boolValue?: boolean;
  doubleValue?: number;
  arrayValue?: { values: OtlpValue[] };
}
export interface OtlpSpan {
  traceId: string;
  spanId: string;
  parentSpanId?: string;
  name: string;
  attributes: { key: string; value: OtlpValue }[];
}
/** One point of an OTLP histogram: its attributes, count, sum and bucket counts. */
export interface OtlpHistogramPoint {
  attributes: { key: string; value: OtlpValue }[];
  count: string | number;
  sum?: number;
  bucketCounts: (string | number)[];
  explicitBounds: number[];
}
export interface OtlpMetric {
  name: string;
  unit?: string;
  description?: string;
  histogram?: { dataPoints: OtlpHistogramPoint[]; aggregationTemporality?: number };
}

const closers: (() => Promise<void>)[] = [];
afterEach(async () => {
  await Promise.all(closers.splice(0).map((close) => close()));
});

/**
 * An OTLP/HTTP (JSON) receiver: it keeps every span (`/v1/traces`) and every metrics export
 * (`/v1/metrics`, each a batch of metrics) it is sent; `hang` answers nothing.
 */
export async function otlpReceiver(options: { hang?: boolean } = {}) {
  const spans: OtlpSpan[] = [];
  const metricBatches: OtlpMetric[][] = [];
  let posts = 0;
  const server = createServer((request: IncomingMessage, response: ServerResponse) => {
    posts++;
    const chunks: Buffer[] = [];
    request.on('data', (chunk: Buffer) => chunks.push(chunk));
    request.on('end', () => {
      if (options.hang === true) return;
      const body = JSON.parse(Buffer.concat(chunks).toString('utf8')) as {
        resourceSpans?: { scopeSpans: { spans: OtlpSpan[] }[] }[];
        resourceMetrics?: { scopeMetrics: { metrics: OtlpMetric[] }[] }[];
      };
      if (request.url === '/v1/metrics')
        metricBatches.push(
          (body.resourceMetrics ?? []).flatMap((r) => r.scopeMetrics.flatMap((s) => s.metrics)),
        );
      else
        for (const resource of body.resourceSpans ?? [])
          for (const scope of resource.scopeSpans) spans.push(...scope.spans);
      response.writeHead(200, { 'content-type': 'application/json' }).end('{}');
    });
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  closers.push(
    () =>
      new Promise((resolve) => {
        server.closeAllConnections();
        server.close(() => {
          resolve();
        });
      }),
  );
  return {
    url: `http://127.0.0.1:${(server.address() as AddressInfo).port}`,
    spans,
    posts: () => posts,
    metricBatches,
    /** A metric as its latest export gave it (cumulative: the latest holds every point). */
    metric: (name: string): OtlpMetric | undefined =>
      metricBatches
        .flat()
        .filter((m) => m.name === name)
        .at(-1),
  };
}

export const attr = (
  span: { attributes: { key: string; value: OtlpValue }[] } | undefined,
  key: string,
): unknown => {
  const value = span?.attributes.find((a) => a.key === key)?.value;
  if (value === undefined) return undefined;
  if (value.intValue !== undefined) return Number(value.intValue);
  return (
    value.stringValue ??
    value.boolValue ??
    value.doubleValue ??
    value.arrayValue?.values.map((v) => v.stringValue)
  );
};
