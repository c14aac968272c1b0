import type { z } from 'zod';
import { ArborError, type JsonObject, type ToolDef, type TrifectaTag } from '../protocol/index.js';
import { inputSchema, parseToolArgs } from './builtin/tool-args.js';
import type { Tool, ToolOutput } from './tool.js';

/** What a host tool's `run` is told about the call. */
export interface HostToolContext {
  runId: string;
  /** The node that called it, and where it sits in the tree. */
  nodeId: string;
  nodePath: string;
  depth: number;
  /** Aborts when the calling node is cancelled, passes its deadline, or the run stops. */
  signal: AbortSignal;
}

/** A tool that runs in the host process, served to every node through the supervisor. */
export interface HostTool {
  readonly name: string;
  readonly description: string;
  /** The zod schema of the arguments; the model sees its JSON Schema. */
  readonly input: z.ZodType;
  /** Trifecta legs the tool brings (`untrusted`, `sensitive`, `egress`), as for MCP servers. */
  readonly tags: readonly TrifectaTag[];
  run(input: unknown, context: HostToolContext): unknown;
}

/** How a host tool is written: `run` gets the arguments already parsed by `input`. */
export interface HostToolSpec<S extends z.ZodType> {
  name: string;
  description: string;
  input: S;
  tags?: readonly TrifectaTag[];
  run(input: z.output<S>, context: HostToolContext): unknown;
}

/** Names arbor's own tools hold; a host tool may not take one, or a name under these prefixes. */
const RESERVED = ['fs.', 'exec', 'http.', 'subagent.', 'memory.', 'ask_human', 'finish', 'output.'];
const NAME = /^[A-Za-z][A-Za-z0-9_-]*(\.[A-Za-z0-9_-]+)*$/;

/**
 * Defines a host tool. Checked here, where the mistake is made: a name that is not a tool name or
 * that one of arbor's own tools holds, an input schema that is not an object schema.
 */
export function defineTool<S extends z.ZodType>(spec: HostToolSpec<S>): HostTool {
  const { name } = spec;
  if (!NAME.test(name))
    throw new ArborError(
      'config',
      `Host tool name \`${name}\` is not a tool name: letters, digits, \`_\` and \`-\`, in parts joined by dots (\`weather.lookup\`).`,
    );
  const clash = RESERVED.find((reserved) =>
    reserved.endsWith('.') ? name.startsWith(reserved) : name === reserved,
  );
  if (clash !== undefined)
    throw new ArborError(
      'config',
      `Host tool name \`${name}\` is one of arbor's own (\`${clash}\`).`,
    );
  const schema = inputSchema(spec.input);
  if (schema.type !== 'object')
    throw new ArborError(
      'config',
      `Host tool \`${name}\`: its input must be a z.object(...) schema (tool arguments are an object).`,
    );
  return {
    name,
    description: spec.description,
    input: spec.input,
    tags: [...(spec.tags ?? [])],
    run: (input, context) => spec.run(input as z.output<S>, context),
  };
}

/**
 * The supervisor's `Tool` for one host tool called by one node: the arguments are parsed with its
 * zod schema (a bad call gets the same fixable error as a built-in tool's), a thrown error becomes
 * a tool error the model can read, and the result is given to the model as it is (a string) or as
 * JSON.
 */
export function hostToolFor(tool: HostTool, context: Omit<HostToolContext, 'signal'>): Tool {
  return {
    def: hostToolDef(tool),
    run: async (args: JsonObject, call): Promise<ToolOutput> => {
      const parsed = parseToolArgs(tool.name, tool.input, args);
      if (!parsed.ok) return { content: parsed.message, isError: true, refused: true };
      try {
        const value: unknown = await tool.run(parsed.args, { ...context, signal: call.signal });
        return { content: asJson(tool.name, value), isError: false };
      } catch (error) {
        if (call.signal.aborted)
          return { content: `\`${tool.name}\` was cancelled.`, isError: true };
        const message = error instanceof Error ? error.message : String(error);
        return { content: `\`${tool.name}\` failed: ${message}`, isError: true };
      }
    },
  };
}

/** The definition a node's model sees for a host tool. */
export function hostToolDef(tool: HostTool): ToolDef {
  return { name: tool.name, description: tool.description, input_schema: inputSchema(tool.input) };
}

/**
 * The value as it will cross to a child (as JSON), or an error naming what could not be sent: a
 * BigInt, a cycle, a function.
 */
function asJson(name: string, value: unknown): unknown {
  if (value === undefined) return null;
  let text: unknown;
  try {
    text = JSON.stringify(value);
  } catch (error) {
    throw new Error(
      `\`${name}\` returned a value that is not JSON: ${error instanceof Error ? error.message : String(error)}`,
      { cause: error },
    );
  }
  if (typeof text !== 'string') throw new Error(`\`${name}\` returned a ${typeof value}, not JSON`);
  return value;
}
