import { App, Aspects } from 'aws-cdk-lib';
import { AwsSolutionsChecks } from 'cdk-nag';
import { EvalPlatformStack } from './stack.js';

const app = new App();
new EvalPlatformStack(app, process.env.STACK_NAME ?? 'EvalPlatform', {
  env: { account: process.env.CDK_DEFAULT_ACCOUNT, region: process.env.CDK_DEFAULT_REGION },
});
// cdk-nag's AwsSolutions pack: a new finding fails `cdk synth` (suppressions live in infra/nag.ts).
Aspects.of(app).add(new AwsSolutionsChecks());
