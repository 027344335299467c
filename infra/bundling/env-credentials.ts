/**
 * What a function bundle gets for `@aws-sdk/credential-provider-node` (the `BUNDLING` alias of
 * infra/constructs/app-function.ts): the SDK's own environment provider, and nothing else of the
 * default chain. Lambda always gives a function its role's credentials in the environment
 * (`AWS_ACCESS_KEY_ID`, `AWS_SECRET_ACCESS_KEY`, `AWS_SESSION_TOKEN`), so the chain's other
 * sources (profiles, SSO with its nested STS and SSO clients, process, web identity, instance
 * metadata) are paths a function never takes; leaving them out makes every bundle ~135 KiB smaller
 * and its import ~30% faster (docs/cold-start.md). test/infra/bundling.test.ts signs a request
 * with a bundle under environment credentials. Unbundled code (the local runtime, the operator
 * CLIs, tests) keeps the whole default chain.
 */
import { fromEnv } from '@aws-sdk/credential-provider-env';

export const defaultProvider = (init: Parameters<typeof fromEnv>[0] = {}) => fromEnv(init);
