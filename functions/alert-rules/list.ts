import { alertRulesRoutes } from '../../shared/routes/alert-rules.js';
import { httpHandler, page } from '../../shared/http/handler.js';
import { listAlertRules } from '../../shared/domain/monitors/alerts.js';

export const handler = httpHandler(alertRulesRoutes.list, async ({ auth, params, query }) =>
  page(await listAlertRules(auth, params.id, query)),
);
