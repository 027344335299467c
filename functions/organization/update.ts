import { organizationRoutes } from '../../shared/routes/organization.js';
import { httpHandler, ok } from '../../shared/http/handler.js';
import { adminUpdateOrganization } from '../../shared/domain/accounts/organization-view.js';

export const handler = httpHandler(organizationRoutes.update, async ({ params, body }) =>
  ok(await adminUpdateOrganization(params.id, body)),
);
