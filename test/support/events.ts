import type { APIGatewayProxyEvent, Context } from 'aws-lambda';

/** A REST API proxy event as API Gateway sends it, with an authorizer context. */
export function proxyEvent(
  overrides: Partial<APIGatewayProxyEvent> & { auth?: Record<string, string> } = {},
): APIGatewayProxyEvent {
  const { auth, ...rest } = overrides;
  return {
    resource: '/',
    path: '/',
    httpMethod: 'GET',
    headers: {},
    multiValueHeaders: {},
    queryStringParameters: null,
    multiValueQueryStringParameters: null,
    pathParameters: null,
    stageVariables: null,
    body: null,
    isBase64Encoded: false,
    requestContext: {
      accountId: '000000000000',
      apiId: 'test',
      authorizer: auth ?? {
        organizationId: 'org_test',
        userId: 'usr_test',
        role: 'MEMBER',
        plan: 'PRO',
        keyId: 'key_test',
      },
      httpMethod: overrides.httpMethod ?? 'GET',
      identity: { sourceIp: '127.0.0.1' } as APIGatewayProxyEvent['requestContext']['identity'],
      path: '/',
      protocol: 'HTTP/1.1',
      requestId: 'req-test',
      requestTimeEpoch: 0,
      resourceId: 'test',
      resourcePath: '/',
      stage: 'test',
    },
    ...rest,
  };
}

export function context(): Context {
  return {
    callbackWaitsForEmptyEventLoop: false,
    functionName: 'test',
    functionVersion: '$LATEST',
    invokedFunctionArn: 'arn:aws:lambda:local:0:function:test',
    memoryLimitInMB: '128',
    awsRequestId: 'aws-req-test',
    logGroupName: 'test',
    logStreamName: 'test',
    getRemainingTimeInMillis: () => 10_000,
    done: () => undefined,
    fail: () => undefined,
    succeed: () => undefined,
  };
}
