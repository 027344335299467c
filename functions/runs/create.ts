import { runsRoutes } from '../../shared/routes/runs.js';
import { created, httpHandler } from '../../shared/http/handler.js';
import { createRunFor } from '../../shared/domain/runs/runs.js';

export const handler = httpHandler(runsRoutes.create, async ({ auth, body }) =>
  created(await createRunFor(auth, body)),
);
