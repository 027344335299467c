import { buildInfoRoutes } from '../../shared/routes/build-info.js';
import { httpHandler, ok } from '../../shared/http/handler.js';
import { buildInfoWithServices } from '../../shared/build/services.js';

export const handler = httpHandler(buildInfoRoutes.services, async () => ok(await buildInfoWithServices()));
