import * as Type from '@sinclair/typebox';
import { httpHandler, page } from '../../shared/http/handler.js';
import { EvaluationListQuery, EvaluationRecord } from '../../shared/schemas/sessions.js';
import { listEvaluationsOf } from '../../shared/domain/evaluation/evaluations.js';

export const handler = httpHandler(
  { handler: 'evaluations/list', query: EvaluationListQuery, response: Type.Array(EvaluationRecord) },
  async ({ auth, query }) => page(await listEvaluationsOf(auth, query)),
);
