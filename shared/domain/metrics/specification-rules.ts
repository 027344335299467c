import { ValidationError } from '../../errors.js';
import type { StoredSpecification } from '../../schemas/specifications.js';
import { variantsOf } from '../evaluation/params.js';

/** testType required for POLICY and forbidden otherwise; testVariant by test type. */
export function checkSpecification(spec: Pick<StoredSpecification, 'type' | 'testType' | 'testVariant'>): void {
  if (spec.type === 'POLICY' && !spec.testType) throw new ValidationError('testType is required when type is POLICY');
  if (spec.type !== 'POLICY' && spec.testType)
    throw new ValidationError(`testType must not be set when type is ${spec.type}`);
  if (!spec.testType) {
    if (spec.testVariant) throw new ValidationError('testVariant must not be set without a testType');
    return;
  }
  const variants = variantsOf(spec.testType);
  if (variants.length === 0) {
    if (spec.testVariant) throw new ValidationError(`testVariant must not be set when testType is ${spec.testType}`);
    return;
  }
  if (!spec.testVariant) throw new ValidationError(`testVariant is required when testType is ${spec.testType}`);
  if (!variants.includes(spec.testVariant)) {
    throw new ValidationError(`testVariant must be one of: ${variants.join(', ')} (testType ${spec.testType})`);
  }
}
