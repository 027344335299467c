import { created, httpHandler } from '../../shared/http/handler.js';
import { IdParams } from '../../shared/schemas/common.js';
import { AlertRule, AlertRuleCreate } from '../../shared/schemas/alerts.js';
import { createAlertRule } from '../../shared/domain/monitors/alerts.js';

export const handler = httpHandler(
  { handler: 'alert-rules/create', params: IdParams, body: AlertRuleCreate, response: AlertRule },
  async ({ auth, params, body }) => created(await createAlertRule(auth, params.id, body)),
);
