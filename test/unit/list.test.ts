import { describe, expect, it } from 'vitest';
import { applyList, anyOf } from '../../shared/domain/common/list.js';

const records = [
  { id: 'a', name: 'Alpha support bot', createdAt: '2026-01-01T00:00:00.000Z', kind: 'x' },
  { id: 'b', name: 'beta', createdAt: '2026-01-03T00:00:00.000Z', kind: 'y' },
  { id: 'c', name: 'Gamma', createdAt: '2026-01-02T00:00:00.000Z', kind: 'x' },
  { id: 'd', name: 'delta SUPPORT', createdAt: '2026-01-04T00:00:00.000Z', kind: 'y' },
];
const spec = { sortable: ['createdAt', 'name'] as ('createdAt' | 'name')[] };

describe('applyList', () => {
  it('sorts by createdAt descending by default and counts every match', () => {
    const page = applyList(records, {}, spec);
    expect(page.items.map((r) => r.id)).toEqual(['d', 'b', 'c', 'a']);
    expect(page.total).toBe(4);
  });

  it('pages with limit and offset, keeping the total', () => {
    const page = applyList(records, { limit: 2, offset: 1 }, spec);
    expect(page.items.map((r) => r.id)).toEqual(['b', 'c']);
    expect(page.total).toBe(4);
  });

  it('filters by ids, exact names, a case-insensitive substring and a created-at range', () => {
    expect(applyList(records, { ids: ['a', 'c', 'zz'] }, spec).items.map((r) => r.id)).toEqual(['c', 'a']);
    expect(applyList(records, { names: ['beta', 'Gamma'] }, spec).total).toBe(2);
    expect(applyList(records, { name: 'support' }, spec).items.map((r) => r.id)).toEqual(['d', 'a']);
    expect(
      applyList(
        records,
        { fromCreatedAt: '2026-01-02T00:00:00.000Z', toCreatedAt: '2026-01-03T00:00:00.000Z' },
        spec,
      ).items.map((r) => r.id),
    ).toEqual(['b', 'c']);
  });

  it('applies resource filters and several sort keys', () => {
    const page = applyList(
      records,
      { sort: ['name:asc'] },
      { ...spec, filters: anyOf<(typeof records)[number]>(['x'], (r) => r.kind) },
    );
    expect(page.items.map((r) => r.id)).toEqual(['a', 'c']);
  });

  it('rejects an unsortable field and an inverted range with a 400', () => {
    expect(() => applyList(records, { sort: ['kind:asc'] }, spec)).toThrow(/sort field 'kind'/);
    expect(() =>
      applyList(records, { fromCreatedAt: '2026-02-01T00:00:00Z', toCreatedAt: '2026-01-01T00:00:00Z' }, spec),
    ).toThrow(/fromCreatedAt must not be after toCreatedAt/);
  });
});
