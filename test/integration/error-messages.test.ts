import { describe, expect, it } from 'vitest';
import { call, newTenant } from '../support/api.js';
import { createProduct } from '../support/fixtures.js';

/** Errors that say what to do, through the gateway as a client meets them. */
describe('errors that say what to do', () => {
  it('names the field meant, the kind of id needed, and where the JSON breaks', async () => {
    const t = await newTenant();
    const product = await createProduct(t.api);
    const typo = await t.api.post('/reviewQueues', { productId: product.id, name: 'q', metricId: ['met_no_pii'] });
    expect(typo.status).toBe(400);
    expect(typo.body.message).toBe("metricIds is required; the body has 'metricId': did you mean 'metricIds'?");
    const extra = await t.api.post('/reviewQueues', {
      productId: product.id,
      name: 'q',
      metricIds: ['met_no_pii'],
      reviewerPerItem: 2,
    });
    expect(extra.body.message).toBe("unknown field 'reviewerPerItem'; did you mean 'reviewersPerItem'?");
    const family = await t.api.post('/reviewQueues', { productId: product.id, name: 'q', metricIds: ['mgrp_no_pii'] });
    expect(family.status).toBe(400);
    expect(family.body.message).toBe(
      'metricIds: mgrp_no_pii is a metric family id (mgrp_…); a metric id (met_…) is needed',
    );
    const version = await t.api.post('/reviewQueues', {
      productId: 'met_no_pii',
      name: 'q',
      metricIds: ['met_no_pii'],
    });
    expect(version.body.message).toBe('productId: met_no_pii is a metric id (met_…); a product id (prod_…) is needed');
    const query = await t.api.get('/reviewQueues', { productId: product.id });
    expect(query.body.message).toBe("unknown query parameter 'productId'; did you mean 'productIds'?");
    const broken = await call('POST', '/reviewQueues', {
      key: t.key,
      rawBody: '{"productId": "x",\n "name" "q"}',
      headers: { 'content-type': 'application/json' },
    });
    expect(broken.status).toBe(400);
    expect(broken.body.message).toBe(
      "the request body is not valid JSON: Expected ':' after property name at line 2, column 9",
    );
  });
});
