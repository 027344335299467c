/**
 * The unit and integration files share one import of the service's modules per worker
 * (vitest.config.ts, `isolate: false`). A file that mocks a module (`vi.mock`) or sets the
 * environment a module reads as it loads (`vi.hoisted`: the log level, the metrics switch) needs
 * modules of its own, which a module another file already imported would not give it: it is listed
 * here and runs isolated. test/unit/test-isolation.test.ts keeps the lists complete.
 */
export const UNIT_OWN_MODULES = [
  'test/unit/aws-clients.test.ts',
  'test/unit/aws-retries.test.ts',
  'test/unit/chime-telephony.test.ts',
  'test/unit/observability.test.ts',
  'test/unit/offload-faults.test.ts',
];

export const INTEGRATION_OWN_MODULES = [
  'test/integration/local-server-guard.test.ts',
  'test/integration/log-secrets.test.ts',
  'test/integration/speech.test.ts',
];

/** What makes a file need modules of its own. */
export const NEEDS_OWN_MODULES = /\bvi\.(mock|doMock|hoisted|resetModules|unmock)\(/;
