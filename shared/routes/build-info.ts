import { route } from './route.js';
import { BuildInfoRecord, BuildInfoServicesRecord } from '../schemas/build-info.js';

export const buildInfoRoutes = {
  get: route('GET', '/build-info', 'build-info/get', 'read', {
    access: 'adminOrEnterprise',
    response: BuildInfoRecord,
  }),
  services: route('GET', '/build-info/services', 'build-info/services', 'read', {
    access: 'adminOrEnterprise',
    capabilities: ['invokeJobs'],
    response: BuildInfoServicesRecord,
  }),
};
