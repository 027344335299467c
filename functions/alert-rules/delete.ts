import { alertRulesRoutes } from '../../shared/routes/alert-rules.js';
import { httpHandler, ok } from '../../shared/http/handler.js';
import { deleteAlertRule } from '../../shared/domain/monitors/alerts.js';

export const handler = httpHandler(alertRulesRoutes.delete, async ({ auth, params }) =>
  ok(await deleteAlertRule(auth, params.id, params.ruleId)),
);
