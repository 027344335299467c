import { httpHandler, ok } from '../../shared/http/handler.js';
import { IdParams } from '../../shared/schemas/common.js';
import { EvaluationRecord } from '../../shared/schemas/sessions.js';
import { getEvaluation } from '../../shared/domain/evaluation/evaluations.js';

export const handler = httpHandler(
  { handler: 'evaluations/get', params: IdParams, response: EvaluationRecord },
  async ({ auth, params }) => ok(await getEvaluation(auth, params.id)),
);
