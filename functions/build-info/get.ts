import { httpHandler, ok } from '../../shared/http/handler.js';
import { buildStamp } from '../../shared/build/stamp.js';

export const handler = httpHandler({ handler: 'build-info/get' }, async () => ok({ api: buildStamp }));
