import { modelsRoutes } from '../../shared/routes/models.js';
import { httpHandler, page } from '../../shared/http/handler.js';
import { listEvaluatorModels } from '../../shared/domain/metrics/models.js';

export const handler = httpHandler(modelsRoutes.list, async () => page(await listEvaluatorModels()));
