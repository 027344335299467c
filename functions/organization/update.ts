import { httpHandler, ok } from '../../shared/http/handler.js';
import { IdParams } from '../../shared/schemas/common.js';
import { OrganizationUpdate } from '../../shared/schemas/organization.js';
import { adminUpdateOrganization } from '../../shared/domain/accounts/organization-view.js';

export const handler = httpHandler(
  { handler: 'organization/update', params: IdParams, body: OrganizationUpdate },
  async ({ params, body }) => ok(await adminUpdateOrganization(params.id, body)),
);
