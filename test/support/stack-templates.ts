import type { Stack } from 'aws-cdk-lib';
import { NestedStack } from 'aws-cdk-lib';
import { Template } from 'aws-cdk-lib/assertions';
import type { CfnFunction } from 'aws-cdk-lib/aws-lambda';
import { AppFunction } from '../../infra/constructs/app-function.js';

export type Resource = {
  Type: string;
  Properties: Record<string, any>;
  DependsOn?: string[];
  Metadata?: Record<string, any>;
};
export type TemplateJson = {
  Resources: Record<string, Resource>;
  Parameters?: Record<string, unknown>;
  Outputs?: Record<string, { Value: unknown }>;
  Metadata?: Record<string, any>;
};

/** One template of a service stack: the stack's own, or one of its nested stacks'. */
export interface StackTemplate {
  stack: Stack;
  json: TemplateJson;
  /** For a nested stack, the parent's AWS::CloudFormation::Stack that deploys it. */
  resourceId?: string;
  /** For a nested stack, what the parent passes to its parameters. */
  passed: Record<string, unknown>;
}

/**
 * The stack's template and those of its nested stacks (one level: the service's are not nested
 * further), the stack's first. Synthesizes the app if it has not been.
 */
export function templatesOf(top: Stack): StackTemplate[] {
  const parent = Template.fromStack(top).toJSON() as TemplateJson;
  const nested = top.node
    .findAll()
    .filter((c): c is NestedStack => c instanceof NestedStack && c.nestedStackParent === top)
    .map((stack) => {
      const resourceId = top.getLogicalId(stack.nestedStackResource!);
      return {
        stack,
        json: Template.fromStack(stack).toJSON() as TemplateJson,
        resourceId,
        passed: (parent.Resources[resourceId]!.Properties.Parameters ?? {}) as Record<string, unknown>,
      };
    });
  return [{ stack: top, json: parent, passed: {} }, ...nested];
}

/** A value of a template as the top stack sees it: a reference to a nested parameter is the value passed to it. */
export function seenFromTop(t: StackTemplate, value: unknown): unknown {
  const ref = (value as { Ref?: unknown } | null)?.Ref;
  if (t.resourceId && typeof ref === 'string' && t.json.Parameters?.[ref]) return t.passed[ref];
  return value;
}

/**
 * How the top stack names a resource of a template: `{Ref}` for its own, the nested stack's output
 * holding `{Ref}` for a nested one's (undefined when there is no such output).
 */
export function refFromTop(t: StackTemplate, logicalId: string): unknown {
  if (!t.resourceId) return { Ref: logicalId };
  const output = Object.entries(t.json.Outputs ?? {}).find(
    ([, o]) => JSON.stringify(o.Value) === JSON.stringify({ Ref: logicalId }),
  );
  return output ? { 'Fn::GetAtt': [t.resourceId, `Outputs.${output[0]}`] } : undefined;
}

/** A function of the service (an AppFunction) in whichever template holds it. */
export interface ServiceFunction {
  template: StackTemplate;
  id: string;
  resource: Resource;
  handler: string;
}

/** Every AppFunction of the stack and its nested stacks, with its template and logical id. */
export function serviceFunctions(top: Stack, templates: readonly StackTemplate[]): ServiceFunction[] {
  return top.node
    .findAll()
    .filter((c): c is AppFunction => c instanceof AppFunction)
    .map((f) => {
      const template = templates.find((t) => t.stack === (f.fn.stack as Stack))!;
      const id = template.stack.getLogicalId(f.fn.node.defaultChild as CfnFunction);
      return { template, id, resource: template.json.Resources[id]!, handler: f.handler };
    });
}

/** The path of an API Gateway resource of a template (`{Ref}` to it): the root, or a parameter naming it, is ``. */
export function apiPathOf(t: StackTemplate, ref: unknown): string {
  const id = (ref as { Ref?: string } | null)?.Ref;
  const resource = id ? t.json.Resources[id] : undefined;
  if (!resource) {
    // The root resource: the parent's RestApi's attribute, or a parameter passed it.
    const seen = JSON.stringify(seenFromTop(t, ref));
    if (!seen.includes('RootResourceId')) throw new Error(`not an API resource: ${JSON.stringify(ref)}`);
    return '';
  }
  return `${apiPathOf(t, resource.Properties.ParentId)}/${resource.Properties.PathPart}`;
}
