import { created, httpHandler } from '../../shared/http/handler.js';
import { RunCreate } from '../../shared/schemas/runs.js';
import { createRunFor } from '../../shared/domain/runs/runs.js';

export const handler = httpHandler({ handler: 'runs/create', body: RunCreate }, async ({ auth, body }) =>
  created(await createRunFor(auth, body)),
);
