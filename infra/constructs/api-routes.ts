import { NestedStack, Stack } from 'aws-cdk-lib';
import {
  AuthorizationType,
  LambdaIntegration,
  type IAuthorizer,
  type Method,
  RestApi,
  Stage,
} from 'aws-cdk-lib/aws-apigateway';
import type { IRole } from 'aws-cdk-lib/aws-iam';
import type { ILogGroup } from 'aws-cdk-lib/aws-logs';
import type { Construct } from 'constructs';
import { routeId, type Route } from '../../shared/routes.js';
import { AppFunction } from './app-function.js';

/**
 * Which nested stack holds the routes of each first path segment (`/metrics/{id}/agreement` is in
 * `metrics`' stack). Fixed on purpose: a function or method that changes stacks is deleted and
 * created again, so a new route must land where its segment already is, and a new segment is
 * written here by hand, in the stack with the most room (docs/decisions.md, Routes in nested
 * stacks). A segment missing here fails the synth.
 */
export const ROUTE_STACKS = {
  // the organization, its keys, the agents and how to reach them, webhooks, the build
  RoutesA: [
    'organization',
    'organizations',
    'apiKeys',
    'products',
    'versions',
    'endpointConnections',
    'phoneConnections',
    'webhooks',
    'models',
    'build-info',
  ],
  // what to measure and with which data: metrics, specifications, tests, evaluations, human review
  RoutesB: ['metrics', 'specifications', 'tests', 'testCases', 'storage', 'evaluations', 'reviewQueues'],
  // what agents did and do: sessions, turns, spans, OTLP, runs, monitors; and the MCP server, which
  // asks mostly about runs (placed here as the stack with the fewest resources: 129 of 450)
  RoutesC: ['sessions', 'inferenceResults', 'traces', 'otel', 'runs', 'monitors', 'mcp'],
} as const satisfies Record<string, readonly string[]>;

export type RouteStackName = keyof typeof ROUTE_STACKS;

/** CloudFormation takes 500 resources per template; every template of the service stays under this (tested). */
export const MAX_RESOURCES_PER_TEMPLATE = 450;

/** A route's group: the first segment of its path (`/metrics/{id}/agreement` → `metrics`). */
export const routeGroup = (route: Pick<Route, 'path'>): string => route.path.split('/')[1] ?? '';

/** The nested stack that holds a route, from ROUTE_STACKS. */
export function routeStackOf(route: Route): RouteStackName {
  const group = routeGroup(route);
  for (const [stack, groups] of Object.entries(ROUTE_STACKS) as [RouteStackName, readonly string[]][]) {
    if (groups.includes(group)) return stack;
  }
  throw new Error(
    `${route.method} ${route.path}: no stack holds /${group} routes; add '${group}' to one stack of ROUTE_STACKS ` +
      '(infra/constructs/api-routes.ts), the one with the most room',
  );
}

export interface ApiRoutesProps {
  /** The routes of this stack, each assigned to it by ROUTE_STACKS. */
  routes: readonly Route[];
  /** The parent's API: this stack imports it and adds the routes' path resources and methods. */
  api: RestApi;
  /** The API's stage name: the invoke permissions name it, as those of the parent's methods do. */
  stageName: string;
  /** The parent's TOKEN authorizer, attached by id (it is the parent's API's, not an imported one's). */
  authorizerId: string;
  /** The parent's role for a route's access level. */
  roleFor: (route: Route) => IRole;
  logGroup: ILogGroup;
  environmentFor: (route: Route) => Record<string, string>;
}

/**
 * Some of the API's routes, in a nested stack: the function of each route and its method on the
 * parent's API, with the path resources under the routes' first segments, which this stack owns
 * whole (ROUTE_STACKS gives a segment to one stack only). The roles, the log group, the
 * authorizer and the deployment stay in the parent, whose deployment waits for this stack
 * (infra/stack.ts). Each parent value used here is one parameter of this template.
 */
export class ApiRoutes extends NestedStack {
  readonly routes: readonly Route[];
  readonly functions: AppFunction[] = [];
  readonly methods: Method[] = [];

  constructor(scope: Construct, id: RouteStackName, props: ApiRoutesProps) {
    const groups = [...new Set(props.routes.map(routeGroup))];
    super(scope, id, {
      description: `${Stack.of(scope).stackName} API routes: /${groups.join(', /')}`,
    });
    this.routes = props.routes;
    for (const route of props.routes) {
      if (routeStackOf(route) !== id)
        throw new Error(`${route.method} ${route.path} belongs to ${routeStackOf(route)}`);
    }

    const api = RestApi.fromRestApiAttributes(this, 'Api', {
      restApiId: props.api.restApiId,
      rootResourceId: props.api.restApiRootResourceId,
    });
    // A method's invoke permission names `deploymentStage.stageName` (`*` without one); the
    // parent's stage, by name (a reference to it would make this stack wait for the deployment,
    // which waits for this stack).
    api.deploymentStage = Stage.fromStageAttributes(this, 'Stage', {
      stageName: props.stageName,
      restApi: api,
    }) as Stage;
    // The authorizer by id: attaching the parent's Authorizer construct to this imported API would
    // fail CDK's check that an authorizer serves one API (it is the same API).
    const authorizer: IAuthorizer = { authorizerId: props.authorizerId, authorizationType: AuthorizationType.CUSTOM };

    for (const route of props.routes) {
      const fn = new AppFunction(this, routeId(route), {
        handler: route.handler,
        role: props.roleFor(route),
        logGroup: props.logGroup,
        environment: props.environmentFor(route),
      });
      this.functions.push(fn);
      this.methods.push(
        api.root
          .resourceForPath(route.path)
          .addMethod(route.method, new LambdaIntegration(fn.fn, { allowTestInvoke: false }), {
            authorizer,
            authorizationType: AuthorizationType.CUSTOM,
          }),
      );
    }
  }
}
