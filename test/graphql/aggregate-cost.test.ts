// An `aggregate` is priced as a `totalCount` (README "GraphQL limits"): COUNT_COST plus the rows it may
// read, once per connection it is asked on (per item of a page for a nested list), its figures 1 each;
// so an aggregate of a large table no index serves is refused before any statement runs, named by its path.
import { describe, expect, it } from '@jest/globals';
import { Kind, parse, type OperationDefinitionNode } from 'graphql';
import { loadConfig } from '../../src/config.js';
import { COUNT_COST, costRefusal, countPrice, priceOperation } from '../../src/graphql/limits.js';
import { buildSchema } from '../../src/graphql/schema.js';

const schema = buildSchema('test');
const MAX_COST = loadConfig({}).graphqlLimits.maxCost;

function price(query: string, tableRows: Record<string, number> = {}) {
  const document = parse(query);
  const operation = document.definitions.find((definition): definition is OperationDefinitionNode => definition.kind === Kind.OPERATION_DEFINITION)!;
  return priceOperation(schema, document, operation, {}, { unboundedPageSize: 1000, tableRows: (table) => tableRows[table] });
}

describe('the price of an aggregate', () => {
  it('is the price of a totalCount over the same connection, plus 1 per figure asked', () => {
    const rows = { alert_rules: 20_000 };
    const total = price('{ alertRules(first: 0) { totalCount } }', rows).cost;
    // aggregate { count sum { a b } min { c } }: count, sum, a, b, min, c
    expect(price('{ alertRules(first: 0) { aggregate { count sum { evaluationIntervalMs pendingForMs } min { createdAt } } } }', rows).cost).toBe(total + 6);
    expect(total).toBe(1 + countPrice(20_000, true));
  });

  it('prices a groupBy by several fields and a bucket as one count', () => {
    expect(price('{ alertRules(first: 1) { groupBy(fields: [CREATED_AT, SEVERITY], bucket: DAY) { keys count } } }').cost).toBe(1 + COUNT_COST + 2);
  });

  it('is paid once per item of the page a nested aggregate is asked on', () => {
    const nested = price('{ datasets(first: 50) { nodes { alertRulePage(first: 1) { aggregate { count } } } } }', { alert_rules: 1000 }).cost;
    // datasets + nodes + 50 × (alertRulePage + (aggregate priced + count))
    expect(nested).toBe(1 + 1 + 50 * (1 + countPrice(1000, true) + 1));
  });

  it('refuses an aggregate of a large table that no index serves, naming it by its path', () => {
    const priced = price('{ auditRecords(where: { _not: { actor: { eq: "a" } } }, first: 0) { aggregate { count } } }', { audit_records: 1_000_000 });
    expect(priced.cost).toBeGreaterThan(MAX_COST);
    expect(costRefusal(priced, MAX_COST)).toContain('the costliest is auditRecords.aggregate');
  });
});
