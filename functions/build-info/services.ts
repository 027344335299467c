import { httpHandler, ok } from '../../shared/http/handler.js';
import { buildInfoWithServices } from '../../shared/build/services.js';

export const handler = httpHandler({ handler: 'build-info/services' }, async () => ok(await buildInfoWithServices()));
