import { httpHandler, ok } from '../../shared/http/handler.js';
import { IdParams } from '../../shared/schemas/common.js';
import { EvaluationRecord, EvaluationUpdate } from '../../shared/schemas/sessions.js';
import { scoreByHuman } from '../../shared/domain/evaluation/evaluations.js';

export const handler = httpHandler(
  { handler: 'evaluations/update', params: IdParams, body: EvaluationUpdate, response: EvaluationRecord },
  async ({ auth, params, body }) => ok(await scoreByHuman(auth, params.id, body)),
);
