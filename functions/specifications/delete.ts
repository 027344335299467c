import { httpHandler, ok } from '../../shared/http/handler.js';
import { IdParams } from '../../shared/schemas/common.js';
import { deleteSpecification } from '../../shared/domain/metrics/specifications.js';

export const handler = httpHandler({ handler: 'specifications/delete', params: IdParams }, async ({ auth, params }) =>
  ok(await deleteSpecification(auth, params.id)),
);
