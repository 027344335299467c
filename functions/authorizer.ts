import type { APIGatewayAuthorizerResult, APIGatewayTokenAuthorizerEvent } from 'aws-lambda';
import { allowPolicy, AuthorizerUnauthorized, resolveCaller } from '../shared/auth/authorize.js';
import { log } from '../shared/http/logger.js';

/**
 * TOKEN authorizer. A bad key of any kind throws `Unauthorized` (API Gateway → 401); a good key
 * gets an Allow policy on every route of the stage, cached 300 s, with the caller as context.
 */
export const handler = async (event: APIGatewayTokenAuthorizerEvent): Promise<APIGatewayAuthorizerResult> => {
  try {
    const caller = await resolveCaller(event.authorizationToken);
    return allowPolicy(caller, event.methodArn);
  } catch (error) {
    if (error instanceof AuthorizerUnauthorized) {
      log('info', 'key refused', { reason: error.reason });
      throw new Error('Unauthorized');
    }
    throw error;
  }
};
