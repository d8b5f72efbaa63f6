// Prisma access for alert rules, their evaluation states and their notifications. Nothing outside
// this module touches these tables. The evaluator's claims (FOR UPDATE SKIP LOCKED) are SQL of its
// own, in evaluator.ts.
import type pg from 'pg';
import { Prisma, type PrismaClient } from '../../generated/prisma/client.js';
import { insertion, type ColumnCast, type WritableColumns } from '../../platform/database/raw-write.js';
import { PRISMA_RAW_TYPES, runSql } from '../../platform/database/sql-statement.js';
import { readList, type ListArguments, type ListPage } from '../../platform/lists/list-query.js';
import { nestedListReader } from '../../platform/lists/nested-list.js';
import { alertRuleList, notificationList, notificationRuleLink, ruleDatasetLink } from './list.js';
import type { ActiveAlert, AlertNotificationRecord, AlertRuleFilter, AlertRuleRecord, NotificationKind, NotificationOutcome, RuleEvaluation, RuleOrder, RuleState } from './types.js';
export { isUniqueViolation } from '../../platform/database/errors.js';

type RuleRow = Prisma.AlertRuleGetPayload<object>;
type StateRow = Prisma.AlertRuleStateGetPayload<object>;
type NotificationRow = Prisma.AlertNotificationGetPayload<object>;

/** A row as the rule's record, with the domain's types for its strings and JSON: the row itself, not a copy (datasets/store.ts's toRecord says why). */
const rule = (row: RuleRow): AlertRuleRecord => row as Omit<RuleRow, keyof RuleTyped> & RuleTyped;
type RuleTyped = Pick<AlertRuleRecord, 'manager' | 'status' | 'operator' | 'severity' | 'labels' | 'annotations' | 'metadata' | 'context'>;

const evaluation = (row: StateRow): RuleEvaluation => ({
  state: row.state as RuleState,
  activeSince: row.activeSince,
  firingSince: row.firingSince,
  lastEvaluatedAt: row.lastEvaluatedAt,
  nextEvaluationAt: row.nextEvaluationAt,
  lastError: row.lastError,
  alerts: row.alerts as unknown as ActiveAlert[],
});

const notification = (row: NotificationRow): AlertNotificationRecord => ({ ...row, kind: row.kind as NotificationKind, outcome: row.outcome as NotificationOutcome });

const ORDER_COLUMNS = { createdAt: 'createdDate', updatedAt: 'updatedDate', name: 'name', status: 'status', severity: 'severity', category: 'category' } as const;

function ruleWhere(filter: AlertRuleFilter): Prisma.AlertRuleWhereInput {
  return {
    ...(filter.status?.length ? { status: { in: filter.status } } : {}),
    ...(filter.id ? { id: filter.id } : {}),
    ...(filter.name ? { name: filter.name } : {}),
    ...(filter.category ? { category: filter.category } : {}),
    ...(filter.severity ? { severity: filter.severity } : {}),
    ...(filter.manager ? { manager: filter.manager } : {}),
    ...(filter.alertType ? { context: { path: ['alertType'], equals: filter.alertType } } : {}),
  };
}

function ruleOrder(order: readonly RuleOrder[]): Prisma.AlertRuleOrderByWithRelationInput[] {
  // Newest first unless told otherwise; the id breaks ties so pages never overlap.
  const given = order.map((o) => ({ [ORDER_COLUMNS[o.field]]: o.direction }));
  return [...(given.length > 0 ? given : [{ createdDate: 'desc' as const }]), { id: 'asc' as const }];
}

export type RuleRowInput = Omit<AlertRuleRecord, 'createdDate' | 'updatedDate'>;

/** The columns a create writes (its dates take their defaults). */
const NEW_RULE_COLUMNS: WritableColumns<keyof RuleRowInput> = {
  id: ['id', 'uuid'],
  name: ['name', 'text'],
  manager: ['manager', 'text'],
  status: ['status', 'text'],
  description: ['description', 'text'],
  metric: ['metric', 'text'],
  operator: ['operator', 'text'],
  thresholds: ['thresholds', 'float8[]'],
  expression: ['expression', 'text'],
  severity: ['severity', 'text'],
  category: ['category', 'text'],
  evaluationIntervalMs: ['evaluation_interval_ms', 'int'],
  pendingForMs: ['pending_for_ms', 'int'],
  labels: ['labels', 'jsonb'],
  annotations: ['annotations', 'jsonb'],
  metadata: ['metadata', 'jsonb'],
  channelIds: ['channel_ids', 'uuid[]'],
  context: ['context', 'jsonb'],
  createdBy: ['created_by', 'text'],
  updatedBy: ['updated_by', 'text'],
};

/** A column read under its field's name (the channel ids as text: pg leaves a uuid[] unparsed). */
const readAs = (field: string, column: string, cast?: ColumnCast) => {
  const value = cast === 'uuid[]' ? `${column}::text[]` : column;
  return value === field ? value : `${value} AS "${field}"`;
};

/** Each field of a rule's record as the SQL that reads it: the columns a create writes, and its dates. */
const RULE_FIELD_SQL = Object.fromEntries([
  ...Object.entries(NEW_RULE_COLUMNS).map(([field, [column, cast]]) => [field, readAs(field, column, cast)]),
  ['createdDate', readAs('createdDate', 'created_date')],
  ['updatedDate', readAs('updatedDate', 'updated_date')],
]) as Readonly<Record<keyof AlertRuleRecord, string>>;
/** A rule's columns named as its record's fields. */
const RULE_COLUMNS = Object.values(RULE_FIELD_SQL).join(', ');

/** The rules about any of the datasets $1 (with these columns): by their dataset label or their context's dataset. */
const aboutDatasetsSql = (columns: string) => `SELECT ${columns}
  FROM alert_rules
 WHERE labels->>'dataset' = ANY($1::text[]) OR context->>'datasetId' = ANY($1::text[])
 ORDER BY created_date DESC, id ASC`;
const ABOUT_DATASETS_SQL = aboutDatasetsSql(RULE_COLUMNS);
/** What telling the rules of each dataset apart needs (datasetOfRule), besides what is read. */
const ABOUT_DATASET_FIELDS = ['id', 'labels', 'context'] as const;

/**
 * The rule named $1 other than the rule $2 (null: any): every create's and rename's first look, as
 * plain SQL (no query compiler), through the name's unique index.
 */
const NAMED_SQL = `SELECT ${RULE_COLUMNS} FROM alert_rules WHERE name = $1 AND id IS DISTINCT FROM $2::uuid LIMIT 1`;

/** The columns of these record fields, and of those the rules' datasets are told by. */
function ruleColumnsFor(fields: ReadonlySet<string>): string {
  return [...new Set([...ABOUT_DATASET_FIELDS, ...fields])]
    .map((field) => {
      const sql = RULE_FIELD_SQL[field as keyof AlertRuleRecord] as string | undefined;
      // A declaration naming a field the record lacks is the gateway's mistake, never the client's.
      if (sql === undefined) throw new Error(`alert_rules has no column for the field ${field}`);
      return sql;
    })
    .join(', ');
}

/**
 * `changed(id)` is told of each rule this process wrote (`*`: several), once committed: kept answers
 * made of alert_rules are dropped at once here, before the database's announcement reaches every gateway.
 */
export function createAlertRuleStore(prisma: PrismaClient, storePool: pg.Pool, changed: (id: string) => void = () => undefined) {
  const toData = (record: Partial<RuleRowInput>) => ({
    ...record,
    ...(record.labels ? { labels: record.labels } : {}),
    ...(record.metadata ? { metadata: record.metadata as Prisma.InputJsonObject } : {}),
    ...(record.context ? { context: record.context as Prisma.InputJsonObject } : {}),
  });

  return {
    /** The rules about each dataset of a request, a page per dataset by the list contract, batched (src/platform/lists/nested-list.ts). */
    datasetPage: nestedListReader({ prisma, storePool }, alertRuleList, ruleDatasetLink, rule),

    /** The notifications of each rule of a request, a page per rule by the list contract, batched. */
    notificationPage: nestedListReader({ prisma, storePool }, notificationList, notificationRuleLink, notification),

    async findById(id: string): Promise<AlertRuleRecord | undefined> {
      const row = await prisma.alertRule.findUnique({ where: { id } });
      return row ? rule(row) : undefined;
    },

    async findByIds(ids: readonly string[]): Promise<AlertRuleRecord[]> {
      if (ids.length === 0) return [];
      return (await prisma.alertRule.findMany({ where: { id: { in: [...ids] } } })).map(rule);
    },

    /** Rules about any of the datasets: labelled `dataset: <id>`, or with `datasetId` in their context (as the platform writes a dataset's rules). */
    async aboutDatasets(datasetIds: readonly string[], fields?: ReadonlySet<string>): Promise<AlertRuleRecord[]> {
      if (datasetIds.length === 0) return [];
      // One array parameter instead of a JSON-path OR per dataset: Prisma compiles such a filter anew
      // for every page size and PostgreSQL plans 2 × N alternatives (a dashboard page of 50 datasets
      // spent most of its time here).
      // As plain SQL besides: no query compiler (bench/dashboard.ts). With `fields`, those columns only.
      const text = fields ? aboutDatasetsSql(ruleColumnsFor(fields)) : ABOUT_DATASETS_SQL;
      const rows = await runSql<RuleRow>(storePool, text, [[...datasetIds]], PRISMA_RAW_TYPES);
      return rows.map(rule);
    },

    async findByName(name: string, exceptId?: string): Promise<AlertRuleRecord | undefined> {
      const [row] = await runSql<RuleRow>(storePool, NAMED_SQL, [name, exceptId ?? null], PRISMA_RAW_TYPES);
      return row ? rule(row) : undefined;
    },

    async list(filter: AlertRuleFilter, order: readonly RuleOrder[], window: { take: number; skip: number }): Promise<AlertRuleRecord[]> {
      return (await prisma.alertRule.findMany({ where: ruleWhere(filter), orderBy: ruleOrder(order), ...window })).map(rule);
    },

    /** A page of the alert-rule search (the list contract: src/platform/lists); `fields`: only these of each record. */
    page(args: ListArguments, listMax: number, fields?: ReadonlySet<string>): Promise<ListPage<AlertRuleRecord>> {
      return readList({ prisma, storePool }, alertRuleList, args, listMax, rule, fields);
    },

    async insert(record: RuleRowInput): Promise<AlertRuleRecord> {
      // A Prisma raw statement: the write stays Prisma's without its query compiler (src/platform/database/raw-write.ts).
      const [row] = await prisma.$queryRaw<RuleRow[]>`INSERT INTO alert_rules ${insertion(NEW_RULE_COLUMNS, record)} RETURNING ${Prisma.raw(RULE_COLUMNS)}`;
      const created = rule(row!);
      changed(created.id);
      return created;
    },

    /**
     * Changes a rule that is not (or no longer) Live, dropping its evaluation state in the same
     * transaction so the evaluator stops at once; undefined when the rule is gone. Publishing is `publish`.
     */
    async update(id: string, changes: Partial<Omit<RuleRowInput, 'status'>> & { status?: 'draft' | 'retired' }): Promise<AlertRuleRecord | undefined> {
      const [, rows] = await prisma.$transaction([
        prisma.alertRuleState.deleteMany({ where: { ruleId: id } }),
        prisma.alertRule.updateManyAndReturn({ where: { id }, data: toData(changes) as Prisma.AlertRuleUpdateManyMutationInput }),
      ]);
      changed(id);
      return rows[0] ? rule(rows[0]) : undefined;
    },

    /** Makes a rule Live and, when the embedded evaluator runs it, schedules its first evaluation. */
    async publish(id: string, updatedBy: string, firstEvaluationAt: Date | null): Promise<AlertRuleRecord | undefined> {
      const published = await prisma.$transaction(async (tx) => {
        const rows = await tx.alertRule.updateManyAndReturn({ where: { id }, data: { status: 'live', updatedBy } });
        if (!rows[0]) return undefined;
        await tx.alertRuleState.deleteMany({ where: { ruleId: id } });
        if (firstEvaluationAt) await tx.alertRuleState.create({ data: { ruleId: id, nextEvaluationAt: firstEvaluationAt } });
        return rule(rows[0]);
      });
      changed(id);
      return published;
    },

    async delete(id: string): Promise<boolean> {
      const deleted = (await prisma.alertRule.deleteMany({ where: { id } })).count > 0;
      changed(id);
      return deleted;
    },

    async deleteByIds(ids: readonly string[]): Promise<number> {
      const deleted = (await prisma.alertRule.deleteMany({ where: { id: { in: [...ids] } } })).count;
      for (const id of ids) changed(id);
      return deleted;
    },

    async evaluations(ids: readonly string[]): Promise<Map<string, RuleEvaluation>> {
      if (ids.length === 0) return new Map();
      const rows = await prisma.alertRuleState.findMany({ where: { ruleId: { in: [...ids] } } });
      return new Map(rows.map((row) => [row.ruleId, evaluation(row)]));
    },

    async notification(id: string): Promise<AlertNotificationRecord | undefined> {
      const row = await prisma.alertNotification.findUnique({ where: { id } });
      return row ? notification(row) : undefined;
    },

    /**
     * The newest `take` notifications (decided) of each rule, newest first, in two statements whatever the number of rules:
     * the ids ranked per rule (rule_id leads the table's unique index), then those rows.
     */
    async notificationsOfRules(ruleIds: readonly string[], take: number): Promise<Map<string, AlertNotificationRecord[]>> {
      const byRule = new Map<string, AlertNotificationRecord[]>(ruleIds.map((id) => [id, []]));
      if (ruleIds.length === 0 || take <= 0) return byRule;
      const ranked = await prisma.$queryRaw<{ id: string }[]>`
        SELECT id FROM (
          SELECT id, row_number() OVER (PARTITION BY rule_id ORDER BY created_date DESC, id ASC) AS position
          FROM alert_notifications WHERE rule_id = ANY(${[...ruleIds]}::uuid[])
        ) AS ranked
        WHERE position <= ${take}`;
      if (ranked.length === 0) return byRule;
      const rows = await prisma.alertNotification.findMany({ where: { id: { in: ranked.map((row) => row.id) } }, orderBy: [{ createdDate: 'desc' }, { id: 'asc' }] });
      for (const row of rows) byRule.get(row.ruleId)?.push(notification(row));
      return byRule;
    },
  };
}

export type AlertRuleStore = ReturnType<typeof createAlertRuleStore>;
