import { inject } from 'vitest';

// Runs before each integration test file is imported: function modules read env at load.
Object.assign(process.env, inject('localEnv'));
// The in-process job queues of the local runtime (queue URLs are local:// in tests).
await import('../../infra/local/queues.js');
