import { inject } from 'vitest';

// Runs before each integration test file is imported: function modules read env at load.
Object.assign(process.env, inject('localEnv'));
