import * as Type from '@sinclair/typebox';
import { route } from './route.js';
import { IdParams } from '../schemas/common.js';
import { CompatibilityEntryRecord } from '../schemas/metrics.js';
import { Deleted } from '../schemas/answers.js';
import { SessionRecord } from '../schemas/sessions.js';
import { CompatibilityQuery, SessionCreate, SessionListQuery, SessionUpdate } from '../schemas/sessions.js';

export const sessionsRoutes = {
  // A recording is checked in storage (its header) and goes on the voice queue.
  create: route('POST', '/sessions', 'sessions/create', 'write', {
    capabilities: ['bucketRead', 'voiceQueueSend'],
    body: SessionCreate,
    response: SessionRecord,
  }),
  list: route('GET', '/sessions', 'sessions/list', 'read', {
    query: SessionListQuery,
    response: Type.Array(SessionRecord),
  }),
  get: route('GET', '/sessions/{id}', 'sessions/get', 'read', { params: IdParams, response: SessionRecord }),
  // Closing queues the monitors' jobs; a recording is checked in storage and goes on the voice queue.
  update: route('PATCH', '/sessions/{id}', 'sessions/update', 'write', {
    capabilities: ['bucketRead', 'queueSend', 'voiceQueueSend'],
    params: IdParams,
    body: SessionUpdate,
    response: SessionRecord,
  }),
  delete: route('DELETE', '/sessions/{id}', 'sessions/delete', 'write', { params: IdParams, response: Deleted }),
  metricCompatibility: route('GET', '/sessions/{id}/metricCompatibility', 'sessions/metric-compatibility', 'read', {
    capabilities: ['bucketRead'],
    params: IdParams,
    query: CompatibilityQuery,
    response: Type.Array(CompatibilityEntryRecord),
  }),
};
