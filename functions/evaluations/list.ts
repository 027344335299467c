import { httpHandler, page } from '../../shared/http/handler.js';
import { EvaluationListQuery } from '../../shared/schemas/sessions.js';
import { listEvaluationsOf } from '../../shared/domain/evaluation/evaluations.js';

export const handler = httpHandler({ handler: 'evaluations/list', query: EvaluationListQuery }, async ({ auth, query }) => page(await listEvaluationsOf(auth, query)));
