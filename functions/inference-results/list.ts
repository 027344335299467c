import { httpHandler, page } from '../../shared/http/handler.js';
import { TurnListQuery } from '../../shared/schemas/sessions.js';
import { listTurnsOf } from '../../shared/domain/sessions/turns.js';

export const handler = httpHandler(
  { handler: 'inference-results/list', query: TurnListQuery },
  async ({ auth, query }) => page(await listTurnsOf(auth, query)),
);
