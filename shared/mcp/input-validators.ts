/**
 * `#mcp-tool-validators` when the code runs unbundled (the local server, tests, scripts): each tool's
 * argument check compiled with the service's ajv on its first call. A function bundle resolves
 * `#mcp-tool-validators` to the module infra/validators.ts precompiles from the same schemas before
 * bundling (.build/validators/mcp-tools.ts), so no schema compiler ships in the MCP function.
 */
import { compile, type Validator } from '../schemas/ajv.js';
import { MCP_TOOL_INPUTS, type McpToolName } from './inputs.js';

const compiled = new Map<McpToolName, Validator<unknown>>();

/** The check of one tool's arguments: they come back with defaults filled in, or it throws the route's 400. */
export function toolInputValidator(name: McpToolName): Validator<unknown> {
  let validator = compiled.get(name);
  if (!validator) {
    validator = compile(MCP_TOOL_INPUTS[name], 'body');
    compiled.set(name, validator);
  }
  return validator;
}
