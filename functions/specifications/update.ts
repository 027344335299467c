import { httpHandler, ok } from '../../shared/http/handler.js';
import { IdParams } from '../../shared/schemas/common.js';
import { SpecificationUpdate } from '../../shared/schemas/specifications.js';
import { updateSpecification } from '../../shared/domain/metrics/specifications.js';

export const handler = httpHandler(
  { handler: 'specifications/update', params: IdParams, body: SpecificationUpdate },
  async ({ auth, params, body }) => ok(await updateSpecification(auth, params.id, body)),
);
