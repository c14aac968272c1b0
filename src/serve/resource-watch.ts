import { Client } from '@modelcontextprotocol/sdk/client/index.js';
import { ResourceUpdatedNotificationSchema } from '@modelcontextprotocol/sdk/types.js';
import { ArborError, ARBOR_VERSION, type McpServerSpec } from '../protocol/index.js';
import { openChannel } from '../tools/mcp/open-channel.js';
import type { ServerChannel } from '../tools/mcp/server-channel.js';

/** A resource's content as a run is given it. */
export interface ResourceContent {
  uri: string;
  text: string;
}

interface Watch {
  /** Names it, for `unwatch`. */
  id: string;
  uri: string;
  debounceMs: number;
  onChange(content: ResourceContent): void;
  onError(error: Error): void;
  timer?: NodeJS.Timeout | undefined;
}

/**
 * MCP resource subscriptions of `arbor serve`: one connection per server, `resources/subscribe`
 * for each resource watched, and on `notifications/resources/updated` (debounced: changes closer
 * together than the debounce make one) the resource is read and handed on.
 */
export class ResourceWatch {
  readonly #servers: ReadonlyMap<string, McpServerSpec>;
  readonly #env: NodeJS.ProcessEnv;
  readonly #connections = new Map<string, Promise<{ client: Client; channel: ServerChannel }>>();
  readonly #watches = new Map<string, Watch[]>();
  #closed = false;

  constructor(servers: readonly McpServerSpec[], env: NodeJS.ProcessEnv) {
    this.#servers = new Map(servers.map((server) => [server.name, server]));
    this.#env = env;
  }

  /** Subscribes to a resource of a configured server; `setupTool` is called once after. */
  async watch(server: string, watch: Omit<Watch, 'timer'>, setupTool?: string): Promise<void> {
    if (this.#closed) throw new ArborError('usage', 'The server is stopping: no new subscription.');
    const { client } = await this.#connect(server);
    const key = `${server}\n${watch.uri}`;
    const list = this.#watches.get(key) ?? [];
    // Subscribed first: a watch whose subscription failed is not kept.
    if (list.length === 0) await client.subscribeResource({ uri: watch.uri });
    list.push({ ...watch });
    this.#watches.set(key, list);
    if (setupTool !== undefined) await client.callTool({ name: setupTool, arguments: {} });
  }

  /** Stops a watch (by the `id` it was made with); the last of a resource unsubscribes. */
  unwatch(server: string, uri: string, id: string): void {
    const key = `${server}\n${uri}`;
    const list = (this.#watches.get(key) ?? []).filter((watch) => {
      if (watch.id !== id) return true;
      clearTimeout(watch.timer);
      return false;
    });
    if (list.length > 0) {
      this.#watches.set(key, list);
      return;
    }
    this.#watches.delete(key);
    void this.#connections
      .get(server)
      ?.then(({ client }) => client.unsubscribeResource({ uri }))
      .catch(() => undefined);
  }

  /** Reads a resource now. */
  async read(server: string, uri: string): Promise<ResourceContent> {
    const { client } = await this.#connect(server);
    const result = await client.readResource({ uri });
    const text = result.contents
      .map((content) =>
        'text' in content && typeof content.text === 'string'
          ? content.text
          : `[${content.mimeType ?? 'binary'} content]`,
      )
      .join('\n');
    return { uri, text };
  }

  async close(): Promise<void> {
    this.#closed = true;
    for (const list of this.#watches.values()) for (const watch of list) clearTimeout(watch.timer);
    const connections = [...this.#connections.values()];
    this.#connections.clear();
    await Promise.allSettled(
      connections.map(async (pending) => {
        const { client, channel } = await pending;
        await client.close().catch(() => undefined);
        await channel.stop({ graceMs: 1000, force: false });
      }),
    );
  }

  #connect(name: string): Promise<{ client: Client; channel: ServerChannel }> {
    const existing = this.#connections.get(name);
    if (existing !== undefined) return existing;
    const spec = this.#servers.get(name);
    if (spec === undefined)
      return Promise.reject(
        new ArborError(
          'config',
          `No MCP server named \`${name}\` is configured (\`[[mcp.server]]\`).`,
        ),
      );
    const connecting = (async () => {
      const opened = await openChannel(
        spec,
        { env: this.#env, resolveSecret: (n) => this.#env[n] },
        'ignore',
      );
      const client = new Client(
        { name: 'arbor-serve', version: ARBOR_VERSION },
        { capabilities: {} },
      );
      client.setNotificationHandler(ResourceUpdatedNotificationSchema, (notification) => {
        this.#updated(name, notification.params.uri);
      });
      // A connection that drops is forgotten: the next watch of this server connects again.
      client.onclose = () => {
        if (this.#connections.get(name) === connecting) this.#connections.delete(name);
      };
      await client.connect(opened.channel.transport, { timeout: spec.connect_timeout_ms });
      return { client, channel: opened.channel };
    })();
    this.#connections.set(name, connecting);
    connecting.catch(() => this.#connections.delete(name));
    return connecting;
  }

  #updated(server: string, uri: string): void {
    if (this.#closed) return;
    for (const watch of this.#watches.get(`${server}\n${uri}`) ?? []) {
      clearTimeout(watch.timer);
      watch.timer = setTimeout(() => {
        watch.timer = undefined;
        this.read(server, uri).then(
          (content) => {
            watch.onChange(content);
          },
          (error: unknown) => {
            watch.onError(error instanceof Error ? error : new Error(String(error)));
          },
        );
      }, watch.debounceMs);
      watch.timer.unref();
    }
  }
}
