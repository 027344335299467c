import { httpHandler } from '../../shared/http/handler.js';
import { methodNotAllowed } from '../../shared/mcp/method-not-allowed.js';
import { ErrorBody } from '../../shared/schemas/records.js';

export const handler = httpHandler({ handler: 'mcp/get', response: ErrorBody }, async () => methodNotAllowed());
