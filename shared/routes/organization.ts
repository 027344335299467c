import { route } from './route.js';
import { IdParams } from '../schemas/common.js';
import { OrganizationUpdate } from '../schemas/organization.js';
import { OrganizationRecord } from '../schemas/organization.js';

export const organizationRoutes = {
  get: route('GET', '/organization', 'organization/get', 'read', { response: OrganizationRecord }),
  update: route('PATCH', '/organizations/{id}', 'organization/update', 'write', {
    access: 'admin',
    params: IdParams,
    body: OrganizationUpdate,
    response: OrganizationRecord,
  }),
};
