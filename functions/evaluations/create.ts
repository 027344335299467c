import * as Type from '@sinclair/typebox';
import { created, httpHandler } from '../../shared/http/handler.js';
import { EvaluationCreate, EvaluationRecord } from '../../shared/schemas/sessions.js';
import { createEvaluations } from '../../shared/domain/evaluation/evaluations.js';

export const handler = httpHandler(
  { handler: 'evaluations/create', body: EvaluationCreate, response: Type.Array(EvaluationRecord) },
  async ({ auth, body }) => created(await createEvaluations(auth, body)),
);
