import { httpHandler, ok } from '../../shared/http/handler.js';
import { BatchIds } from '../../shared/schemas/phone-connections.js';
import { deletePhoneConnections } from '../../shared/domain/catalog/phone-connections.js';

export const handler = httpHandler(
  { handler: 'phone-connections/batch-delete', body: BatchIds },
  async ({ auth, body }) => ok(await deletePhoneConnections(auth, body)),
);
