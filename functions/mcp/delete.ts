import { httpHandler } from '../../shared/http/handler.js';
import { methodNotAllowed } from '../../shared/mcp/method-not-allowed.js';
import { mcpRoutes } from '../../shared/routes/mcp.js';

export const handler = httpHandler(mcpRoutes.delete, async () => methodNotAllowed());
