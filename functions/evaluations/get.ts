import { httpHandler, ok } from '../../shared/http/handler.js';
import { IdParams } from '../../shared/schemas/common.js';
import { getEvaluation } from '../../shared/domain/evaluation/evaluations.js';

export const handler = httpHandler({ handler: 'evaluations/get', params: IdParams }, async ({ auth, params }) => ok(await getEvaluation(auth, params.id)));
