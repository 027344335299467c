import { httpHandler, page } from '../../shared/http/handler.js';
import { listEvaluatorModels } from '../../shared/domain/metrics/models.js';

export const handler = httpHandler({ handler: 'models/list' }, async () => page(await listEvaluatorModels()));
