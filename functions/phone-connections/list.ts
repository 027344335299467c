import { httpHandler, page } from '../../shared/http/handler.js';
import { PhoneConnectionListQuery } from '../../shared/schemas/phone-connections.js';
import { listPhoneConnections } from '../../shared/domain/catalog/phone-connections.js';

export const handler = httpHandler(
  { handler: 'phone-connections/list', query: PhoneConnectionListQuery },
  async ({ auth, query }) => page(await listPhoneConnections(auth, query)),
);
