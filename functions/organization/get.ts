import { organizationRoutes } from '../../shared/routes/organization.js';
import { httpHandler, ok } from '../../shared/http/handler.js';
import { getOrganizationView } from '../../shared/domain/accounts/organization-view.js';

export const handler = httpHandler(organizationRoutes.get, async ({ auth }) => ok(await getOrganizationView(auth)));
