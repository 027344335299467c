import type { APIGatewayAuthorizerResult, APIGatewayTokenAuthorizerEvent } from 'aws-lambda';
import { allowPolicy, AuthorizerUnauthorized, resolveCaller } from '../shared/auth/authorize.js';
import { logger } from '../shared/observability/logger.js';
import { observedHandler } from '../shared/observability/lambda.js';

/**
 * TOKEN authorizer. A bad key of any kind throws `Unauthorized` (API Gateway → 401); a good key
 * gets an Allow policy on every route of the stage, cached 300 s, with the caller as context.
 * The key itself is never logged, only why it was refused.
 */
export const handler = observedHandler(
  async (event: APIGatewayTokenAuthorizerEvent): Promise<APIGatewayAuthorizerResult> => {
    try {
      const caller = await resolveCaller(event.authorizationToken);
      logger.debug('key accepted', { organizationId: caller.organizationId, keyId: caller.keyId });
      return allowPolicy(caller, event.methodArn);
    } catch (error) {
      if (error instanceof AuthorizerUnauthorized) {
        logger.info('key refused', { reason: error.reason });
        throw new Error('Unauthorized');
      }
      throw error;
    }
  },
);
