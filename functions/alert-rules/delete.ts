import { httpHandler, ok } from '../../shared/http/handler.js';
import { RuleParams } from '../../shared/schemas/alerts.js';
import { deleteAlertRule } from '../../shared/domain/monitors/alerts.js';

export const handler = httpHandler({ handler: 'alert-rules/delete', params: RuleParams }, async ({ auth, params }) =>
  ok(await deleteAlertRule(auth, params.id, params.ruleId)),
);
