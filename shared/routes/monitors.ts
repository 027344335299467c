import * as Type from '@sinclair/typebox';
import { route } from './route.js';
import { Alert, AlertListQuery } from '../schemas/alerts.js';
import { IdParams } from '../schemas/common.js';
import { MonitorCreate, MonitorListQuery, MonitorUpdate, ResultsQuery } from '../schemas/monitors.js';
import { Deleted } from '../schemas/answers.js';
import { MonitorRecord, MonitorResultsRecord } from '../schemas/monitors.js';

export const monitorsRoutes = {
  create: route('POST', '/monitors', 'monitors/create', 'write', { body: MonitorCreate, response: MonitorRecord }),
  list: route('GET', '/monitors', 'monitors/list', 'read', {
    query: MonitorListQuery,
    response: Type.Array(MonitorRecord),
  }),
  get: route('GET', '/monitors/{id}', 'monitors/get', 'read', { params: IdParams, response: MonitorRecord }),
  update: route('PATCH', '/monitors/{id}', 'monitors/update', 'write', {
    capabilities: ['webhookQueueSend'],
    params: IdParams,
    body: MonitorUpdate,
    response: MonitorRecord,
  }),
  delete: route('DELETE', '/monitors/{id}', 'monitors/delete', 'write', { params: IdParams, response: Deleted }),
  results: route('GET', '/monitors/{id}/results', 'monitors/results', 'read', {
    capabilities: ['tableSelect'],
    params: IdParams,
    query: ResultsQuery,
    response: MonitorResultsRecord,
  }),
  alerts: route('GET', '/monitors/{id}/alerts', 'monitors/alerts', 'read', {
    params: IdParams,
    query: AlertListQuery,
    response: Type.Array(Alert),
  }),
};
