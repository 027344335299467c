import { tableName } from './client.js';
import type { Key } from './keys.js';

/** A condition to add to an update: `expression` may use the given placeholder names and values. */
export interface Condition {
  expression: string;
  names?: Record<string, string>;
  values?: Record<string, unknown>;
}

/** A live record: it exists and is not soft-deleted. */
export const LIVE: Condition = {
  expression: 'attribute_exists(pk) AND attribute_not_exists(#deletedAt)',
  names: { '#deletedAt': 'deletedAt' },
};

/** Joins conditions with AND. */
export function allOf(...conditions: (Condition | undefined)[]): Condition {
  const present = conditions.filter((c): c is Condition => Boolean(c));
  return {
    expression: present.map((c) => `(${c.expression})`).join(' AND '),
    names: Object.assign({}, ...present.map((c) => c.names ?? {})),
    values: Object.assign({}, ...present.map((c) => c.values ?? {})),
  };
}

/**
 * The parameters of an UpdateItem (alone or in a transaction) that sets `set`, removes `remove`
 * and holds only under `condition`. Every field-map update of the service is built here.
 */
export function updateOf(key: Key, set: Record<string, unknown>, remove: string[] = [], condition?: Condition) {
  const names: Record<string, string> = { ...(condition?.names ?? {}) };
  const values: Record<string, unknown> = { ...(condition?.values ?? {}) };
  const sets = Object.entries(set).map(([k, v], i) => {
    names[`#s${i}`] = k;
    values[`:s${i}`] = v;
    return `#s${i} = :s${i}`;
  });
  const removes = remove.map((k, i) => {
    names[`#r${i}`] = k;
    return `#r${i}`;
  });
  return {
    TableName: tableName,
    Key: key,
    UpdateExpression: [
      sets.length ? `SET ${sets.join(', ')}` : '',
      removes.length ? `REMOVE ${removes.join(', ')}` : '',
    ]
      .filter(Boolean)
      .join(' '),
    ...(condition ? { ConditionExpression: condition.expression } : {}),
    ...(Object.keys(names).length ? { ExpressionAttributeNames: names } : {}),
    ...(Object.keys(values).length ? { ExpressionAttributeValues: values } : {}),
  };
}
