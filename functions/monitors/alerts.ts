import * as Type from '@sinclair/typebox';
import { httpHandler, page } from '../../shared/http/handler.js';
import { IdParams } from '../../shared/schemas/common.js';
import { Alert, AlertListQuery } from '../../shared/schemas/alerts.js';
import { listMonitorAlerts } from '../../shared/domain/monitors/alerts.js';

export const handler = httpHandler(
  { handler: 'monitors/alerts', params: IdParams, query: AlertListQuery, response: Type.Array(Alert) },
  async ({ auth, params, query }) => page(await listMonitorAlerts(auth, params.id, query)),
);
