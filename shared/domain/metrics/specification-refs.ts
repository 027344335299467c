import type { AuthContext } from '../../auth/context.js';
import { getLiveRecords } from '../../db/catalog.js';
import { NotFoundError, ValidationError } from '../../errors.js';
import type { StoredSpecification } from '../../schemas/specifications.js';
import { specificationEntity } from '../common/entities.js';

/** Specifications named in a body: live, the caller's (403 otherwise); an unknown one is a 400 naming the field. */
export async function getLiveSpecifications(
  auth: AuthContext,
  ids: string[],
  field: string,
): Promise<StoredSpecification[]> {
  if (ids.length === 0) return [];
  try {
    return await getLiveRecords<StoredSpecification>(specificationEntity, auth.organizationId, ids);
  } catch (error) {
    if (error instanceof NotFoundError) throw new ValidationError(`${field}: ${error.message}`);
    throw error;
  }
}
