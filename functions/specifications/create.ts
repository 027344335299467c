import { created, httpHandler } from '../../shared/http/handler.js';
import { SpecificationCreate } from '../../shared/schemas/specifications.js';
import { createSpecification } from '../../shared/domain/metrics/specifications.js';

export const handler = httpHandler(
  { handler: 'specifications/create', body: SpecificationCreate },
  async ({ auth, body }) => created(await createSpecification(auth, body)),
);
