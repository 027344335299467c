import { httpHandler, ok } from '../../shared/http/handler.js';
import { IdParams } from '../../shared/schemas/common.js';
import { Agreement, AgreementQuery } from '../../shared/schemas/review.js';
import { metricAgreement } from '../../shared/domain/review/agreement.js';

export const handler = httpHandler(
  { handler: 'metrics/agreement', params: IdParams, query: AgreementQuery, response: Agreement },
  async ({ auth, params, query }) => ok(await metricAgreement(auth, params.id, query)),
);
