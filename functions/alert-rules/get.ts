import { alertRulesRoutes } from '../../shared/routes/alert-rules.js';
import { httpHandler, ok } from '../../shared/http/handler.js';
import { getAlertRule } from '../../shared/domain/monitors/alerts.js';

export const handler = httpHandler(alertRulesRoutes.get, async ({ auth, params }) =>
  ok(await getAlertRule(auth, params.id, params.ruleId)),
);
