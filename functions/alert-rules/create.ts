import { alertRulesRoutes } from '../../shared/routes/alert-rules.js';
import { created, httpHandler } from '../../shared/http/handler.js';
import { createAlertRule } from '../../shared/domain/monitors/alerts.js';

export const handler = httpHandler(alertRulesRoutes.create, async ({ auth, params, body }) =>
  created(await createAlertRule(auth, params.id, body)),
);
