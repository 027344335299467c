import * as Type from '@sinclair/typebox';
import { route } from './route.js';
import { AlertRule, AlertRuleCreate, AlertRuleListQuery, RuleParams } from '../schemas/alerts.js';
import { IdParams } from '../schemas/common.js';
import { Deleted } from '../schemas/answers.js';

export const alertRulesRoutes = {
  create: route('POST', '/monitors/{id}/alertRules', 'alert-rules/create', 'write', {
    params: IdParams,
    body: AlertRuleCreate,
    response: AlertRule,
  }),
  list: route('GET', '/monitors/{id}/alertRules', 'alert-rules/list', 'read', {
    params: IdParams,
    query: AlertRuleListQuery,
    response: Type.Array(AlertRule),
  }),
  get: route('GET', '/monitors/{id}/alertRules/{ruleId}', 'alert-rules/get', 'read', {
    params: RuleParams,
    response: AlertRule,
  }),
  delete: route('DELETE', '/monitors/{id}/alertRules/{ruleId}', 'alert-rules/delete', 'write', {
    capabilities: ['webhookQueueSend'],
    params: RuleParams,
    response: Deleted,
  }),
};
