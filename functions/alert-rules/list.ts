import * as Type from '@sinclair/typebox';
import { httpHandler, page } from '../../shared/http/handler.js';
import { IdParams } from '../../shared/schemas/common.js';
import { AlertRule, AlertRuleListQuery } from '../../shared/schemas/alerts.js';
import { listAlertRules } from '../../shared/domain/monitors/alerts.js';

export const handler = httpHandler(
  { handler: 'alert-rules/list', params: IdParams, query: AlertRuleListQuery, response: Type.Array(AlertRule) },
  async ({ auth, params, query }) => page(await listAlertRules(auth, params.id, query)),
);
