import { App } from 'aws-cdk-lib';
import { EvalPlatformStack } from './stack.js';

const app = new App();
new EvalPlatformStack(app, process.env.STACK_NAME ?? 'EvalPlatform', {
  env: { account: process.env.CDK_DEFAULT_ACCOUNT, region: process.env.CDK_DEFAULT_REGION },
});
