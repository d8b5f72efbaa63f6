// The GraphQL inputs of the list contract, printed from the lists' declarations: per list a typed
// `<Type>Where`, `<Type>OrderField`/`<Type>Order` and `<Type>GroupField`, its aggregate types, and its
// connections' `groupBy` and `aggregate`; shared, one comparison input per kind of field (and per enum). `npm run generate:docs` writes them to
// graphql/lists.graphql, which the schema and the generated types read like any other SDL file.
import { measuresOf, TIME_BUCKETS } from '../platform/lists/aggregate.js';
import { allOperatorsOf } from '../platform/lists/comparisons.js';
import { enumNameOf, type ListDeclaration, type ListField } from '../platform/lists/declaration.js';

export interface ListSdlOptions {
  /** Lists whose `<Type>Order` input and `<Type>OrderField` enum are written by hand (they predate the contract). */
  ownOrderInput?: boolean;
  /** Other connections that page the list's rows (the datasource pages), each with what it counts (for its descriptions). */
  alsoPagedBy?: Readonly<Record<string, string>>;
  /** A sentence added to `groupBy`'s description (what to do on a long list). */
  groupAdvice?: string;
}

const OPERATOR_DESCRIPTIONS: Record<string, string> = {
  eq: 'Equal to this value.',
  in: 'Equal to one of these values (at most 500).',
  neq: 'Not equal to this value (items without a value included). No index serves it: a count filtered only by it is priced as a read of every item.',
  nin: 'Equal to none of these values (at most 500; items without a value included). No index serves it: a count filtered only by it is priced as a read of every item.',
  isNull: 'True: only items without a value; false: only items with one. Only on fields that may be empty.',
  contains:
    'Holds this text, ignoring case (from 1 to 200 characters). From 3 characters a trigram index serves it; 1 or 2 characters read every item, and a count filtered only by them is priced so.',
  startsWith: 'Starts with this text, ignoring case (from 1 to 200 characters), served by an index at any length.',
  gt: 'After (greater than) this value.',
  gte: 'At or after (greater than or equal to) this value.',
  lt: 'Before (less than) this value.',
  lte: 'At or before (less than or equal to) this value.',
};

/** What a set comparison's operators mean: the field holds several values. */
const SET_OPERATOR_DESCRIPTIONS: Record<string, string> = {
  eq: 'Holds this value.',
  neq: 'Does not hold this value.',
  in: 'Holds one of these values at least (at most 500).',
  nin: 'Holds none of these values (at most 500).',
  isNull: 'True: holds no value at all; false: holds one at least.',
};

const KIND_COMPARISONS: Record<Exclude<ListField['kind'], 'enum' | 'set'>, { name: string; scalar: string; description: string }> = {
  key: { name: 'KeyComparison', scalar: 'String', description: 'Compares an identifier or a code: every operator given must hold.' },
  text: { name: 'TextComparison', scalar: 'String', description: 'Compares a text field: every operator given must hold.' },
  time: { name: 'DateTimeComparison', scalar: 'DateTime', description: 'Compares a time: every operator given must hold.' },
  int: { name: 'IntComparison', scalar: 'Int', description: 'Compares a whole number: every operator given must hold.' },
};

/** The GraphQL type of one value of a field: its enum, or its kind's scalar (a set of strings holds Strings). */
const scalarOf = (field: ListField) => field.enumType ?? (field.kind === 'set' || field.kind === 'enum' ? 'String' : KIND_COMPARISONS[field.kind].scalar);

function comparisonName(field: ListField): string {
  if (field.kind === 'set') return `${scalarOf(field)}SetComparison`;
  return field.kind === 'enum' ? `${field.enumType}Comparison` : KIND_COMPARISONS[field.kind].name;
}

function comparisonInput(field: ListField): string {
  const scalar = scalarOf(field);
  const descriptions = field.kind === 'set' ? SET_OPERATOR_DESCRIPTIONS : OPERATOR_DESCRIPTIONS;
  const typeOf = (operator: string) => (operator === 'in' || operator === 'nin' ? `[${scalar}!]` : operator === 'isNull' ? 'Boolean' : scalar);
  const lines = allOperatorsOf(field.kind).map((operator) => `  ${JSON.stringify(descriptions[operator])}\n  ${operator}: ${typeOf(operator)}`);
  const description =
    field.kind === 'set'
      ? `Compares a field that holds several ${scalar} values: every operator given must hold.`
      : field.kind === 'enum'
        ? `Compares a ${scalar} value: every operator given must hold.`
        : KIND_COMPARISONS[field.kind].description;
  return `"${description}"\ninput ${comparisonName(field)} {\n${lines.join('\n')}\n}`;
}

const describe = (text: string) => JSON.stringify(text);

function listInputs(declaration: ListDeclaration, options: ListSdlOptions): string[] {
  const { type, plural } = declaration;
  const fields = Object.entries(declaration.fields);
  const where = [
    `${describe(`Filters ${plural}: every field given must match; \`_and\`, \`_or\` and \`_not\` combine filters.`)}`,
    `input ${type}Where {`,
    `  "Every one of these filters matches."`,
    `  _and: [${type}Where!]`,
    `  "At least one of these filters matches."`,
    `  _or: [${type}Where!]`,
    `  "This filter does not match: every item it leaves out, those without a value in a field it compares included."`,
    `  _not: ${type}Where`,
    ...fields.flatMap(([name, field]) => [`  ${describe(field.description)}`, `  ${name}: ${comparisonName(field)}`]),
    '}',
  ].join('\n');
  const enumOf = (name: string, description: string, wanted: (field: ListField) => boolean | undefined) =>
    [`${describe(description)}`, `enum ${name} {`, ...fields.filter(([, field]) => wanted(field)).flatMap(([key, field]) => [`  ${describe(field.description)}`, `  ${enumNameOf(key)}`]), '}'].join(
      '\n',
    );
  const blocks = [where];
  if (!options.ownOrderInput) {
    blocks.push(enumOf(`${type}OrderField`, `What ${plural} can be ordered by.`, (field) => field.orderable));
    blocks.push(
      [
        `${describe(`One key of an order of ${plural}: later keys break ties of earlier ones, and the identifier breaks the rest.`)}`,
        `input ${type}Order {`,
        '  "What to order by."',
        `  field: ${type}OrderField!`,
        '  "Which way. Ascending when omitted."',
        '  direction: SortOrder = ASC',
        '}',
      ].join('\n'),
    );
  }
  blocks.push(
    [
      `${describe(`What ${plural} can be counted by (\`groupBy\`); a time is counted by the \`bucket\` it falls in.`)}`,
      `enum ${type}GroupField {`,
      ...fields
        .filter(([, field]) => field.groupable || field.kind === 'time')
        .flatMap(([key, field]) => [`  ${describe(field.kind === 'time' ? `${field.description} By a \`bucket\`.` : field.description)}`, `  ${enumNameOf(key)}`]),
      '}',
    ].join('\n'),
  );
  return [...blocks, ...aggregateTypes(declaration)];
}

/** A list's `<Type>Aggregate` and the types of its figures: sums and averages of its numbers (when it has any), bounds of its numbers and times. */
function aggregateTypes(declaration: ListDeclaration): string[] {
  const { type, plural } = declaration;
  const measures = measuresOf(declaration);
  const numbers = measures.filter((measure) => measure.numeric);
  const figures = (name: string, description: string, of: typeof measures, scalar: (numeric: boolean) => string) =>
    [`${describe(description)}`, `type ${name} {`, ...of.flatMap((measure) => [`  ${describe(measure.description)}`, `  ${measure.name}: ${scalar(measure.numeric)}`]), '}'].join('\n');
  const blocks: string[] = [];
  const aggregate = [
    `${describe(`Figures over the ${plural} the connection's \`where\` matches (all pages), only those the caller may read: one SQL statement, priced as a \`totalCount\`.`)}`,
    `type ${type}Aggregate {`,
    `  "How many ${plural} match."`,
    '  count: Int!',
  ];
  if (numbers.length > 0) {
    blocks.push(figures(`${type}AggregateNumbers`, `Sums or averages of the figures of ${plural}; null when no matching item has a value.`, numbers, () => 'Float'));
    aggregate.push('  "The sum of each figure."', `  sum: ${type}AggregateNumbers!`, '  "The average of each figure."', `  avg: ${type}AggregateNumbers!`);
  }
  blocks.push(
    figures(`${type}AggregateBounds`, `The least or greatest figures and times of ${plural}; null when no matching item has a value.`, measures, (numeric) => (numeric ? 'Float' : 'DateTime')),
  );
  aggregate.push('  "The least value of each figure and time."', `  min: ${type}AggregateBounds!`, '  "The greatest value of each figure and time."', `  max: ${type}AggregateBounds!`, '}');
  return [aggregate.join('\n'), ...blocks];
}

/**
 * The fields every connection of a list has beyond its page (`groupBy`, `aggregate`), added to the
 * connection type its domain file writes (`extend type`): `counted` names its items in descriptions.
 */
function connectionFields(type: string, connection: string, counted: string, advice: string | undefined): string {
  const grouped = `How many ${counted} match the filter, by the values of some fields (a time by the \`bucket\` it falls in), the most frequent first (at most 1,000 groups).`;
  return [
    `extend type ${connection} {`,
    `  ${describe(advice ? `${grouped} ${advice}` : grouped)}`,
    '  groupBy(',
    '    "The older form: the one field to count by."',
    `    field: ${type}GroupField @deprecated(reason: "Use \`fields: [...]\`, which counts by several fields and a time by a \`bucket\`.")`,
    '    "The fields to count by (1 to 4), in the order of each group\'s `keys`."',
    `    fields: [${type}GroupField!]`,
    '    "How to cut the time fields among `fields`: required when there is one, refused when there is none."',
    '    bucket: TimeBucket',
    '  ): [GroupCount!]!',
    '  "Figures over every item the filter matches (all pages): count, and the sum, average, least and greatest of each figure and time. One SQL statement, priced as `totalCount`."',
    `  aggregate: ${type}Aggregate!`,
    '}',
  ].join('\n');
}

function connectionsOf(declaration: ListDeclaration, options: ListSdlOptions): string[] {
  const paged = { [`${declaration.type}Connection`]: declaration.plural, ...options.alsoPagedBy };
  return Object.entries(paged).map(([connection, counted]) => connectionFields(declaration.type, connection, counted, options.groupAdvice));
}

/** The SDL of every list's inputs and of the shared comparison inputs (each printed once). */
export function listContractSdl(lists: readonly { declaration: ListDeclaration; options?: ListSdlOptions }[]): string {
  const shared = new Map<string, string>();
  for (const { declaration } of lists) {
    for (const field of Object.values(declaration.fields)) shared.set(comparisonName(field), comparisonInput(field));
  }
  const groupCount = [
    '"How many items of a filtered list hold one combination of values of some fields (`groupBy`). A `groupBy`, as a `totalCount`, reads every item the filter matches: the query cost prices it at 25 plus the rows it may read (see `RateLimit`)."',
    'type GroupCount {',
    '  "The value of the first field, as its GraphQL enum value for an enum field; null for items without one."',
    '  key: String',
    '  "The value of each field, in the order of `fields`: an enum field\'s GraphQL enum value, a time\'s bucket as the instant it starts (UTC, ISO 8601); null for items without one."',
    '  keys: [String]!',
    '  "How many items hold it."',
    '  count: Int!',
    '}',
  ].join('\n');
  const buckets = [
    '"How `groupBy` cuts a time field: into buckets of this length, each starting on its boundary in UTC (a week on Monday)."',
    'enum TimeBucket {',
    ...Object.keys(TIME_BUCKETS).flatMap((bucket) => [`  ${describe(`One ${bucket.toLowerCase()}.`)}`, `  ${bucket}`]),
    '}',
  ].join('\n');
  const blocks = [
    groupCount,
    buckets,
    ...[...shared.keys()].sort().map((name) => shared.get(name)!),
    ...lists.flatMap(({ declaration, options }) => [...listInputs(declaration, options ?? {}), ...connectionsOf(declaration, options ?? {})]),
  ];
  return `# Generated from the lists' declarations (src/graphql/lists.ts) by \`npm run generate:docs\`; do not edit.\n\n${blocks.join('\n\n')}\n`;
}
