import { getRecord } from '../../db/catalog.js';
import { listTurns, spansOfSession } from '../../db/sessions.js';
import type { Product, Version } from '../../schemas/products.js';
import { endpointConnectionEntity, productEntity, testCaseEntity, versionEntity } from '../common/entities.js';
import type { EvaluationSources } from './context.js';
import { restoreItem, restoreItems } from '../../db/offload.js';
import { toRecord } from '../../db/records.js';
import type { EndpointConnection } from '../../schemas/endpoint-connections.js';
import type { Session, Span } from '../../schemas/sessions.js';
import type { TestCase } from '../../schemas/tests.js';

async function maybe<T>(load: () => Promise<T>): Promise<T | undefined> {
  try {
    return await load();
  } catch {
    return undefined;
  }
}

/** Reads everything an evaluation of this session may use. */
export async function loadSources(session: Session): Promise<EvaluationSources> {
  const org = session.organizationId;
  const [turns, spanItems, product, testCase, version] = await Promise.all([
    listTurns(session.id),
    spansOfSession(session.id),
    maybe(() => getRecord<Product>(productEntity, org, session.productId, { includeDeleted: true })),
    session.testCaseId
      ? maybe(() =>
          getRecord<TestCase>(testCaseEntity, org, session.testCaseId!, { includeDeleted: true, restore: restoreItem }),
        )
      : undefined,
    maybe(() => getRecord<Version>(versionEntity, org, session.versionId, { includeDeleted: true })),
  ]);
  const connectionId = version?.conversationEndpointConnectionId;
  const conversationConnection = connectionId
    ? await maybe(() => getRecord<EndpointConnection>(endpointConnectionEntity, org, connectionId))
    : undefined;
  const spans = (await restoreItems(spanItems.filter((i) => !i.deletedAt))).map((i) => toRecord<Span>(i));
  return { session, turns, spans, product, testCase, conversationConnection };
}
