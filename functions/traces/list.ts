import { httpHandler, page } from '../../shared/http/handler.js';
import { SpanListQuery } from '../../shared/schemas/sessions.js';
import { listSpans } from '../../shared/domain/sessions/spans.js';

export const handler = httpHandler({ handler: 'traces/list', query: SpanListQuery }, async ({ auth, query }) =>
  page(await listSpans(auth, query)),
);
