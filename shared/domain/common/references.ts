import { NotFoundError, ValidationError } from '../../errors.js';
import { wrongKindOfId } from './ids.js';

/**
 * A record named in a request body: another organization's stays a 403, but an unknown or deleted
 * one is a 400 naming the field ("productId prod_x does not name an existing product"), because the
 * request itself is malformed. One rule for every body reference (see docs/decisions.md).
 */
export async function bodyReference<T>(load: () => Promise<T>, field: string, id: string, what: string): Promise<T> {
  try {
    return await load();
  } catch (error) {
    if (error instanceof NotFoundError) {
      const kind = wrongKindOfId(id, what);
      throw new ValidationError(kind ? `${field}: ${kind}` : `${field} ${id} does not name an existing ${what}`);
    }
    throw error;
  }
}
