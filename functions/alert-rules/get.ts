import { httpHandler, ok } from '../../shared/http/handler.js';
import { AlertRule, RuleParams } from '../../shared/schemas/alerts.js';
import { getAlertRule } from '../../shared/domain/monitors/alerts.js';

export const handler = httpHandler(
  { handler: 'alert-rules/get', params: RuleParams, response: AlertRule },
  async ({ auth, params }) => ok(await getAlertRule(auth, params.id, params.ruleId)),
);
