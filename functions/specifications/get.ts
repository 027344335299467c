import { httpHandler, ok } from '../../shared/http/handler.js';
import { IdParams } from '../../shared/schemas/common.js';
import { getSpecification } from '../../shared/domain/metrics/specifications.js';

export const handler = httpHandler({ handler: 'specifications/get', params: IdParams }, async ({ auth, params }) =>
  ok(await getSpecification(auth, params.id)),
);
