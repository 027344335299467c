import { httpHandler, page } from '../../shared/http/handler.js';
import { SpecificationListQuery } from '../../shared/schemas/specifications.js';
import { listSpecifications } from '../../shared/domain/metrics/specifications.js';

export const handler = httpHandler(
  { handler: 'specifications/list', query: SpecificationListQuery },
  async ({ auth, query }) => page(await listSpecifications(auth, query)),
);
