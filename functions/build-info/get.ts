import { buildInfoRoutes } from '../../shared/routes/build-info.js';
import { httpHandler, ok } from '../../shared/http/handler.js';
import { buildStamp } from '../../shared/build/stamp.js';

export const handler = httpHandler(buildInfoRoutes.get, async () => ok({ api: buildStamp }));
