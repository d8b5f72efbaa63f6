// Access is always the caller's, whichever way an operation enters the gateway. The matrix is made
// at run time from the schema and the policy (config/permissions.json), so a link, root field or
// role added later is covered without editing this file:
// - links: every field of a Node type (or of a part embedded in one, like a dataset's connectors)
//   whose items are records of a Node type, asked by every role over POST /graphql, GET /graphql,
//   again after an admin had its answer kept (the kept answers and the fast path in front of express),
//   through node(id), and over graphql-ws and SSE for every link a datasetChanged event reaches. A
//   role is refused (FORBIDDEN, on the first field whose records it may not read: nodes.ts's
//   NODE_READ_API_IDS, an embedded part's LINK_READ_API_IDS, or the root field's API ids) or gets the records an admin gets;
// - root fields: every Query field over POST and GET, every Subscription field over graphql-ws and
//   SSE (a resumable stream such as alertStateChanges or auditStream refused exactly to the roles
//   its query twin is: test/support/auth.ts's STREAM_TWINS), and every Query field as a live query
//   (`subscription { live { <field> } }`) over both, refused exactly to the roles the policy denies;
//   Mutation fields refused to them over POST;
// - REST: every table entry refused (403) to every role without its API id (test/http/auth-rest.test.ts
//   checks one such role per entry, with every kind of credential; here every role, by token).
import { randomUUID } from 'node:crypto';
import { afterAll, beforeAll, describe, expect, it } from '@jest/globals';
import { getNamedType, getNullableType, GraphQLString, isObjectType, type GraphQLField, type GraphQLNamedType, type GraphQLObjectType } from 'graphql';
import { createClient as createWsClient, type Client } from 'graphql-ws';
import supertest from 'supertest';
import WebSocket from 'ws';
import {
  callEndpoint,
  callField,
  endpointName,
  endpoints,
  fieldErrorCodes,
  fieldRequest,
  isPublic,
  JWT_ENV,
  policy,
  rootFields,
  schema,
  subscriptionFields,
  token,
  type ProbeResult,
  type RootField,
} from '../support/auth.js';
import { denormField, GOOD_CONNECTOR, seedDataset, seedMaster, type SeedState } from '../support/datasets.js';
import { startTestGateway, type TestGateway } from '../support/gateway.js';
import { seedTemplate } from '../support/templates.js';
import { fieldApiIds } from '../../src/auth/field-api-ids.js';
import { restEndpoints } from '../../rest/endpoints.js';
import { globalId, type NodeType } from '../../src/graphql/global-id.js';
import { LINK_READ_API_IDS, NODE_READ_API_IDS } from '../../src/graphql/nodes.js';
import { PUBLISHED_READS, ROOT_FIELD_PERMISSIONS } from '../../src/graphql/schema.js';

// ---------------------------------------------------------------------------------------------
// The matrix, from the schema and the policy

const ROLES = policy.roles;
const { byField } = fieldApiIds(schema, ROOT_FIELD_PERMISSIONS, restEndpoints);
const REFUSALS = ['FORBIDDEN', 'UNAUTHENTICATED'];

const isNodeType = (type: GraphQLNamedType | undefined): type is GraphQLObjectType => isObjectType(type) && type.getInterfaces().some((face) => face.name === 'Node');
const nodeTypes = Object.values(schema.getTypeMap()).filter(isNodeType);
const readIds = (type: string): readonly string[] => NODE_READ_API_IDS[type as NodeType] ?? [];
const requiredArgs = (field: GraphQLField<unknown, unknown>) => field.args.filter((arg) => arg.type.toString().endsWith('!') && arg.defaultValue === undefined).map((arg) => arg.name);

type Shape = 'record' | 'nodes' | 'edges';

interface Link {
  /** `Dataset.templates`, or `Dataset.connectors.connector` for a field of a part embedded in the record. */
  name: string;
  /** The field as its type declares it (`DatasetConnector.connector`). */
  coordinate: string;
  parent: string;
  /** Fields of embedded parts between the record and the link (`connectors`). */
  via: string[];
  field: string;
  target: string;
  shape: Shape;
  required: string[];
}

/** The Node type of a field's items: itself, or the `nodes` / `edges.node` of a connection. */
function itemsOf(type: GraphQLNamedType): { target: GraphQLObjectType; shape: Shape } | undefined {
  if (isNodeType(type)) return { target: type, shape: 'record' };
  if (!isObjectType(type)) return undefined;
  const fields = type.getFields();
  const nodes = fields.nodes && getNamedType(fields.nodes.type);
  if (isNodeType(nodes)) return { target: nodes, shape: 'nodes' };
  const edge = fields.edges && getNamedType(fields.edges.type);
  const node = isObjectType(edge) ? edge.getFields().node : undefined;
  const item = node && getNamedType(node.type);
  if (isNodeType(item)) return { target: item, shape: 'edges' };
  return undefined;
}

function linksOfSchema(): Link[] {
  const links: Link[] = [];
  for (const parent of nodeTypes) {
    const walk = (owner: GraphQLObjectType, via: string[], seen: Set<string>) => {
      for (const field of Object.values(owner.getFields())) {
        const named = getNamedType(field.type);
        const items = itemsOf(named);
        if (items) {
          links.push({
            name: [parent.name, ...via, field.name].join('.'),
            coordinate: `${owner.name}.${field.name}`,
            parent: parent.name,
            via,
            field: field.name,
            target: items.target.name,
            shape: items.shape,
            required: requiredArgs(field),
          });
        } else if (isObjectType(named) && !seen.has(named.name) && requiredArgs(field).length === 0) {
          walk(named, [...via, field.name], new Set([...seen, named.name]));
        }
      }
    };
    walk(parent, [], new Set([parent.name]));
  }
  return links;
}

const LINKS = linksOfSchema();

/** A record's id and every text field it has (a template's query among them). */
function recordSelection(typeName: string): string {
  const type = schema.getType(typeName) as GraphQLObjectType;
  const texts = Object.values(type.getFields()).filter((field) => field.args.length === 0 && !field.deprecationReason && getNullableType(field.type) === GraphQLString);
  return ['__typename', 'id', ...texts.map((field) => field.name)].join(' ');
}

interface LinkCase {
  /** `Dataset.templatePage { totalCount }` */
  name: string;
  link: Link;
  /** What is asked of the link's field. */
  selection: string;
}

/** What can be read through a link: its records, and a connection's count (which tells as much about them). */
function casesOf(link: Link): LinkCase[] {
  const record = recordSelection(link.target);
  if (link.shape === 'record') return [{ name: link.name, link, selection: record }];
  const connection = getNamedType(fieldAt(link).type) as GraphQLObjectType;
  const items = link.shape === 'nodes' ? `nodes { ${record} }` : `edges { node { ${record} } }`;
  const cases = [{ name: `${link.name} { ${link.shape} }`, link, selection: items }];
  if (connection.getFields().totalCount) cases.push({ name: `${link.name} { totalCount }`, link, selection: 'totalCount' });
  return cases;
}

function fieldAt(link: Link): GraphQLField<unknown, unknown> {
  const [owner, field] = link.coordinate.split('.') as [string, string];
  return (schema.getType(owner) as GraphQLObjectType).getFields()[field]!;
}

/** Where an operation starts: the root field and what admits a caller to it. */
interface Root {
  /** `node(id)`, `Query.dataset`, `Subscription.datasetChanged` */
  name: string;
  variableDefinitions: string;
  open: string;
  close: string;
  /** The response keys down to the record the hops start from. */
  prefix: string[];
  /** The API ids each field of the prefix needs (any one of them), by its path. */
  guards: Guard[];
  variables: Record<string, unknown>;
}

interface Guard {
  /** The field's path in the response, list indices left out (`node.templates`). */
  at: string;
  ids: readonly string[];
}

/** A way from a root to a link: the root, the record-shaped links followed, then the link itself. */
interface Route {
  root: Root;
  hops: Link[];
}

const stepsOf = (link: Link) => [...link.via, link.field];

function nest(fields: string[], selection: string): string {
  let inside = selection;
  for (const field of [...fields].reverse()) inside = `${field} { ${inside} }`;
  return inside;
}

function documentOf(operation: 'query' | 'subscription', route: Route, linkCase: LinkCase): string {
  let inside = nest(stepsOf(linkCase.link), linkCase.selection);
  for (const hop of [...route.hops].reverse()) inside = nest(stepsOf(hop), inside);
  return `${operation} Matrix${route.root.variableDefinitions} { ${route.root.open} ${inside} ${route.root.close} }`;
}

/** The response keys down to the link's value. */
function valuePath(route: Route, linkCase: LinkCase): string[] {
  return [...route.root.prefix, ...route.hops.flatMap(stepsOf), ...stepsOf(linkCase.link)];
}

/** Each field of the route that admits callers, with the API ids it needs. */
function guardsOf(route: Route, linkCase: LinkCase): Guard[] {
  const guards = [...route.root.guards];
  const path = [...route.root.prefix];
  for (const link of [...route.hops, linkCase.link]) {
    // An embedded part read as its own kind of record (a dataset's page of connector instances) admits by its own ids first.
    let owner = schema.getType(link.parent) as GraphQLObjectType;
    for (const step of link.via) {
      path.push(step);
      const named = getNamedType(owner.getFields()[step]!.type) as GraphQLObjectType;
      const ids = LINK_READ_API_IDS[named.name];
      if (ids && !isNodeType(named)) guards.push({ at: path.join('.'), ids });
      owner = named;
    }
    path.push(link.field);
    guards.push({ at: path.join('.'), ids: readIds(link.target) });
  }
  return guards;
}

type Outcome = { refused: string; at: string; leaked: unknown } | { data: unknown } | { failed: string[] };

/** What the policy says the role gets: the first field it may not read refuses it, else the records an admin gets. */
function expectedOutcome(role: string, guards: Guard[], adminData: unknown): Outcome {
  const refusal = guards.find((guard) => !policy.allows([role], guard.ids));
  return refusal ? { refused: 'FORBIDDEN', at: refusal.at, leaked: null } : { data: adminData };
}

function valueAt(value: unknown, path: readonly string[]): unknown {
  if (value === null || value === undefined) return null;
  if (Array.isArray(value)) return value.map((item) => valueAt(item, path));
  if (path.length === 0) return value;
  return valueAt((value as Record<string, unknown>)[path[0]!], path.slice(1));
}

/** Nothing of a record in it: null, 0, '' or lists and objects holding only that. */
function isEmpty(value: unknown): boolean {
  if (value === null || value === undefined || value === 0 || value === '') return true;
  if (Array.isArray(value)) return value.every(isEmpty);
  if (typeof value === 'object') return Object.values(value).every(isEmpty);
  return false;
}

interface GraphQLBody {
  data?: Record<string, unknown> | null;
  errors?: { message: string; path?: (string | number)[]; extensions?: { code?: string } }[];
}

/** A response as the matrix compares it: the refusal (and whatever records came with it), the link's value, or other errors. */
function outcomeOf(body: GraphQLBody, path: readonly string[]): Outcome {
  const errors = body.errors ?? [];
  const refusals = errors.filter((error) => REFUSALS.includes(error.extensions?.code ?? ''));
  if (refusals.length > 0) {
    const codes = [...new Set(refusals.map((error) => error.extensions!.code!))];
    // A refusal without a path is the root field's (a subscription refused before it runs).
    const at = [...new Set(refusals.map((error) => (error.path ? error.path.filter((key) => typeof key === 'string').join('.') : path[0]!)))];
    const leaked = valueAt(body.data, path);
    return { refused: codes.join(', '), at: at.join(', '), leaked: isEmpty(leaked) ? null : leaked };
  }
  if (errors.length > 0) return { failed: errors.map((error) => `${error.extensions?.code ?? '?'}: ${error.message} (at ${error.path?.join('.') ?? '-'})`) };
  return { data: valueAt(body.data, path) };
}

// Roots. `node(id)` reaches a record of every type; the root fields taking one record's `id` reach
// theirs, and those whose answers are kept (published reads) let the kept-answer entries run.
const idRoots = Object.values(schema.getQueryType()!.getFields()).filter((field) => requiredArgs(field).join() === 'id' && isNodeType(getNamedType(field.type)));
const keptRoots = idRoots.filter((field) => PUBLISHED_READS.tables[`Query.${field.name}`]);
const unpublished = new Set(PUBLISHED_READS.unpublished);

/** The seeded records an operation starts from: global ids, and the natural keys root fields take. */
interface SeededRecord {
  globalId: string;
  key?: string;
}

function nodeRoot(type: string, record: SeededRecord): Root {
  return {
    name: 'node(id)',
    variableDefinitions: '($id: ID!)',
    open: `node(id: $id) { ... on ${type} {`,
    close: '} }',
    prefix: ['node'],
    guards: [{ at: 'node', ids: readIds(type) }],
    variables: { id: record.globalId },
  };
}

function fieldRoot(field: GraphQLField<unknown, unknown>, record: SeededRecord): Root {
  return {
    name: `Query.${field.name}`,
    variableDefinitions: '($id: ID!)',
    open: `${field.name}(id: $id) {`,
    close: '}',
    prefix: [field.name],
    guards: [{ at: field.name, ids: byField.get(`Query.${field.name}`)! }],
    variables: { id: record.key },
  };
}

/** The record-shaped links from `from` to `to` in the fewest hops (at most `depth`), avoiding `avoid`. */
function hopsBetween(from: string, to: string, depth: number, avoid: (link: Link) => boolean = () => false): Link[] | undefined {
  const queue: { type: string; hops: Link[] }[] = [{ type: from, hops: [] }];
  const seen = new Set([from]);
  while (queue.length > 0) {
    const { type, hops } = queue.shift()!;
    if (type === to) return hops;
    if (hops.length >= depth) continue;
    for (const link of LINKS) {
      if (link.parent !== type || link.shape !== 'record' || link.required.length > 0 || avoid(link) || seen.has(link.target)) continue;
      seen.add(link.target);
      queue.push({ type: link.target, hops: [...hops, link] });
    }
  }
  return undefined;
}

/**
 * How the HTTP entries ask for a link: from a root whose answers are kept, when one reaches the
 * parent record (the kept-answer entries then are served kept answers), else from the parent's own
 * root field, else node(id).
 */
function httpRoute(linkCase: LinkCase, records: Map<string, SeededRecord>): Route {
  const parent = linkCase.link.parent;
  if (!unpublished.has(linkCase.link.coordinate)) {
    const kept = keptRoots.flatMap((field) => {
      const record = records.get(getNamedType(field.type).name);
      const hops = record?.key !== undefined ? hopsBetween(getNamedType(field.type).name, parent, 2, (link) => unpublished.has(link.coordinate)) : undefined;
      return hops ? [{ root: fieldRoot(field, record!), hops }] : [];
    });
    const nearest = kept.sort((a, b) => a.hops.length - b.hops.length)[0];
    if (nearest) return nearest;
  }
  const own = idRoots.find((field) => getNamedType(field.type).name === parent);
  const record = records.get(parent)!;
  if (own && record.key !== undefined) return { root: fieldRoot(own, record), hops: [] };
  return { root: nodeRoot(parent, record), hops: [] };
}

// Subscriptions: the links a datasetChanged event reaches, each once, by the fewest hops from its dataset.
const LIVE_ROOT = 'datasetChanged';
const LIVE_ROOT_IDS = byField.get(`Subscription.${LIVE_ROOT}`)!;
const LIVE_PARENT = getNamedType((getNamedType(schema.getSubscriptionType()!.getFields()[LIVE_ROOT]!.type) as GraphQLObjectType).getFields().dataset!.type).name;

function liveRoot(datasetId: string): Root {
  return {
    name: `Subscription.${LIVE_ROOT}`,
    variableDefinitions: '($d: String)',
    open: `${LIVE_ROOT}(datasetId: $d) { at dataset { id`,
    close: '} }',
    prefix: [LIVE_ROOT, 'dataset'],
    guards: [
      { at: LIVE_ROOT, ids: LIVE_ROOT_IDS },
      { at: `${LIVE_ROOT}.dataset`, ids: readIds(LIVE_PARENT) },
    ],
    variables: { d: datasetId },
  };
}

const ALL_CASES = LINKS.flatMap(casesOf);
const LIVE_CASES = ALL_CASES.flatMap((linkCase) => {
  const hops = hopsBetween(LIVE_PARENT, linkCase.link.parent, 3);
  return hops && linkCase.link.required.length === 0 ? [{ linkCase, hops }] : [];
});

// ---------------------------------------------------------------------------------------------
// The gateway, the callers and the records

let gw: TestGateway;
let asAdmin: TestGateway;
const bearer = new Map<string, string>();
const wsClients = new Map<string, Client>();
const openStreams = new Set<AbortController>();
/** The records the HTTP entries start from, by type. */
const records = new Map<string, SeededRecord>();
/** Every template's query text (what a role that may not read templates must never be sent). */
const templateTexts: string[] = [];

const RUN = randomUUID().slice(0, 6);
const MASTER = `matrix_master_${RUN}`;
const READ_DATASET = `matrix_reads_${RUN}`;
const LIVE_DATASET = `matrix_live_${RUN}`;

async function adminGraphql(query: string, variables: Record<string, unknown> = {}): Promise<Record<string, any>> {
  const response = await asAdmin.http.post('/graphql').send({ query, variables });
  if (response.body.errors) throw new Error(`seed step failed: ${JSON.stringify(response.body.errors)}\n${query}`);
  return response.body.data as Record<string, any>;
}

/** A dataset with a record at every link: a denorm source, a connector, a template naming it, an alert rule with a channel, a silence and a notification. */
async function seedLinkedRecords(datasetId: string, state: SeedState): Promise<Map<string, SeededRecord>> {
  await seedDataset(asAdmin, datasetId, state, { denorm_config: { denorm_fields: [denormField(MASTER)] }, connectors_config: [GOOD_CONNECTOR] });
  const query = `SELECT COUNT(*) AS matrix_secret_${datasetId} FROM {{DATASET}} JOIN "${datasetId}" USING (id) WHERE __time BETWEEN {{STARTDATE}} AND {{ENDDATE}}`;
  templateTexts.push(query);
  const templateId = await seedTemplate(asAdmin, `Matrix ${datasetId.replaceAll('_', ' ')}`, 'sql', query);
  const channel = await adminGraphql('mutation($input: CreateNotificationChannelInput!) { createNotificationChannel(input: $input) { channel { id channelId } } }', {
    input: { manager: 'embedded', name: `matrix ${datasetId}`, type: 'EMAIL', config: { recipientAddresses: 'ops@example.com' } },
  });
  const channelId = channel.createNotificationChannel.channel.channelId as string;
  const rule = await adminGraphql('mutation($input: CreateAlertRuleInput!) { createAlertRule(input: $input) { alertRule { id alertRuleId } } }', {
    input: { name: `matrix ${datasetId}`, category: 'matrix', metric: 'up', operator: 'GT', thresholds: [1], labels: { dataset: datasetId }, channelIds: [channelId] },
  });
  const ruleId = rule.createAlertRule.alertRule.alertRuleId as string;
  const silence = await adminGraphql('mutation($input: CreateSilenceInput!) { createSilence(input: $input) { silence { id silenceId } } }', {
    input: { alertId: ruleId, manager: 'embedded', startDate: new Date(Date.now() - 60_000).toISOString(), endDate: new Date(Date.now() + 7_200_000).toISOString() },
  });
  const notificationId = randomUUID();
  await gw.sql(`INSERT INTO alert_notifications (id, rule_id, channel_id, kind, evaluated_at, outcome, subject, text) VALUES ($1, $2, $3, 'firing', now(), 'sent', 'Matrix', 'matrix notification')`, [
    notificationId,
    ruleId,
    channelId,
  ]);
  return new Map<string, SeededRecord>([
    ['Dataset', { globalId: globalId('Dataset', datasetId, 'live'), key: datasetId }],
    ['Datasource', { globalId: globalId('Datasource', datasetId) }],
    ['QueryTemplate', { globalId: globalId('QueryTemplate', templateId), key: templateId }],
    ['NotificationChannel', { globalId: channel.createNotificationChannel.channel.id as string, key: channelId }],
    ['AlertRule', { globalId: rule.createAlertRule.alertRule.id as string, key: ruleId }],
    ['Silence', { globalId: silence.createSilence.silence.id as string, key: silence.createSilence.silence.silenceId as string }],
    ['AlertNotification', { globalId: globalId('AlertNotification', notificationId) }],
  ]);
}

beforeAll(async () => {
  gw = await startTestGateway(JWT_ENV);
  for (const role of ROLES) bearer.set(role, `Bearer ${await token({ sub: `matrix-${role}`, roles: [role], expiresIn: 3600 })}`);
  asAdmin = { ...gw, http: supertest.agent(gw.url).set('authorization', `Bearer ${await token({ sub: 'matrix-seeder', roles: ['admin'], expiresIn: 3600 })}`) };
  await seedMaster(asAdmin, MASTER);
  const [reads] = await Promise.all([seedLinkedRecords(READ_DATASET, 'LiveWithDraft'), seedLinkedRecords(LIVE_DATASET, 'Live')]);
  for (const [type, record] of reads) records.set(type, record);
  for (const role of ROLES) {
    wsClients.set(
      role,
      createWsClient({ url: `${gw.url.replace(/^http/, 'ws')}/graphql`, webSocketImpl: WebSocket, connectionParams: { authorization: bearer.get(role)! }, lazy: false, retryAttempts: 0 }),
    );
  }
}, 90_000);

afterAll(async () => {
  for (const controller of openStreams) controller.abort();
  await Promise.all([...wsClients.values()].map(async (client) => client.dispose()));
  await gw?.stop();
});

// ---------------------------------------------------------------------------------------------
// Transports

const sleep = (ms: number) => new Promise((resolve) => setTimeout(resolve, ms));

async function inBatches<T, R>(items: readonly T[], size: number, work: (item: T) => Promise<R>): Promise<R[]> {
  const results: R[] = new Array<R>(items.length);
  let next = 0;
  await Promise.all(
    Array.from({ length: Math.min(size, items.length) }, async () => {
      while (next < items.length) {
        const index = next++;
        results[index] = await work(items[index]!);
      }
    }),
  );
  return results;
}

async function post(role: string, query: string, variables: Record<string, unknown>): Promise<{ status: number; body: GraphQLBody }> {
  const response = await gw.http.post('/graphql').set('authorization', bearer.get(role)!).set('content-type', 'application/json').send({ query, variables });
  return { status: response.status, body: response.body as GraphQLBody };
}

/** A query as Apollo Client sends it over GET (the preflight header Apollo's CSRF prevention asks for). */
async function get(role: string, query: string, variables: Record<string, unknown>): Promise<{ status: number; body: GraphQLBody }> {
  const response = await gw.http
    .get('/graphql')
    .query({ query, variables: JSON.stringify(variables) })
    .set('apollo-require-preflight', 'true')
    .set('authorization', bearer.get(role)!);
  return { status: response.status, body: response.body as GraphQLBody };
}

/** A subscription's deliveries on one transport: its results as they came, or the errors it was refused with. */
interface Delivery {
  transport: 'graphql-ws' | 'SSE';
  results: GraphQLBody[];
  /** The raw text the transport received (SSE), or the results as JSON (graphql-ws). */
  text(): string;
  refused?: GraphQLBody;
  /** The HTTP status of an SSE stream. */
  status?: number;
  stop(): void;
}

function subscribeOverWs(role: string, query: string, variables: Record<string, unknown>): Delivery {
  const delivery: Delivery = {
    transport: 'graphql-ws',
    results: [],
    text: () => JSON.stringify(delivery.results),
    stop: () => undefined,
  };
  delivery.stop = wsClients.get(role)!.subscribe(
    { query, variables },
    {
      next: (result) => void delivery.results.push(result as GraphQLBody),
      error: (error) => (delivery.refused = { errors: Array.isArray(error) ? error : [{ message: String(error) }] }),
      complete: () => undefined,
    },
  );
  return delivery;
}

/** An SSE subscription (distinct connections mode); resolves once the gateway answered its head (admitted: subscribed; or refused). */
async function subscribeOverSse(role: string, query: string, variables: Record<string, unknown>): Promise<Delivery> {
  const controller = new AbortController();
  const response = await fetch(`${gw.url}/graphql/stream`, {
    method: 'POST',
    headers: { authorization: bearer.get(role)!, accept: 'text/event-stream', 'content-type': 'application/json' },
    body: JSON.stringify({ query, variables }),
    signal: controller.signal,
  });
  let raw = '';
  const delivery: Delivery = { transport: 'SSE', results: [], text: () => raw, status: response.status, stop: () => controller.abort() };
  if (response.status !== 200 || !response.body) {
    delivery.refused = (await response.json().catch(() => ({ errors: [{ message: `HTTP ${response.status}` }] }))) as GraphQLBody;
    return delivery;
  }
  openStreams.add(controller);
  const reader = response.body.getReader();
  const decoder = new TextDecoder();
  void (async () => {
    let pending = '';
    try {
      for (;;) {
        const { done, value } = await reader.read();
        if (done) break;
        const chunk = decoder.decode(value, { stream: true });
        raw += chunk;
        pending += chunk;
        let end: number;
        while ((end = pending.indexOf('\n\n')) >= 0) {
          const event = pending.slice(0, end);
          pending = pending.slice(end + 2);
          const data = /^data: (.*)$/m.exec(event)?.[1];
          if (/^event: next$/m.test(event) && data) delivery.results.push(JSON.parse(data) as GraphQLBody);
        }
      }
    } catch {
      // aborted at the end of the test
    }
  })();
  return delivery;
}

/** Answers the fast path served kept, before express (its counter on /metrics). */
async function fastPathAnswers(): Promise<number> {
  const text = (await gw.http.get('/metrics').set('authorization', bearer.get('admin')!)).text;
  return [...text.matchAll(/^gateway_fast_path_answers_total\{[^}]*\} (\d+)/gm)].reduce((sum, match) => sum + Number(match[1]), 0);
}

async function until(condition: () => boolean, timeoutMs: number): Promise<boolean> {
  for (const started = Date.now(); !condition(); await sleep(20)) if (Date.now() - started > timeoutMs) return false;
  return true;
}

// ---------------------------------------------------------------------------------------------

describe('the matrix', () => {
  it('has links, roles and root fields to check, and the read ids of every Node type', () => {
    expect(LINKS.length).toBeGreaterThan(10);
    expect(ROLES.length).toBeGreaterThan(2);
    expect(nodeTypes.map((type) => type.name).filter((type) => readIds(type).length === 0)).toEqual([]);
  });

  it('can ask every link without making up its arguments', () => {
    expect(LINKS.filter((link) => link.required.length > 0).map((link) => link.name)).toEqual([]);
  });

  it('follows a datasetChanged event to the links of its dataset and of the records one more hop away', () => {
    const live = new Set(LIVE_CASES.map(({ linkCase }) => linkCase.link.parent));
    expect(live).toContain(LIVE_PARENT);
    expect(LIVE_CASES.some(({ hops }) => hops.length >= 1)).toBe(true);
  });
});

describe('a record reached through a link, over HTTP', () => {
  interface HttpCase {
    linkCase: LinkCase;
    route: Route;
    query: string;
    variables: Record<string, unknown>;
    path: string[];
    guards: Guard[];
    byNode?: { query: string; variables: Record<string, unknown>; path: string[]; guards: Guard[] };
  }
  const ENTRIES = ['POST /graphql', 'GET /graphql', 'POST /graphql, kept answer', 'GET /graphql, kept answer', 'POST /graphql, through node(id)'] as const;
  type Entry = (typeof ENTRIES)[number];

  let cases: HttpCase[] = [];
  const admin = new Map<string, Outcome>();
  const adminByNode = new Map<string, Outcome>();
  const answers = new Map<string, Map<Entry, Outcome>>();
  /** The documents whose answer an admin's asking got kept (asked again without a statement). */
  const kept = new Set<string>();

  beforeAll(async () => {
    cases = ALL_CASES.filter((linkCase) => records.has(linkCase.link.parent)).map((linkCase) => {
      const route = httpRoute(linkCase, records);
      const byNode = route.root.name === 'node(id)' ? undefined : { root: nodeRoot(linkCase.link.parent, records.get(linkCase.link.parent)!), hops: [] };
      return {
        linkCase,
        route,
        query: documentOf('query', route, linkCase),
        variables: route.root.variables,
        path: valuePath(route, linkCase),
        guards: guardsOf(route, linkCase),
        ...(byNode && { byNode: { query: documentOf('query', byNode, linkCase), variables: byNode.root.variables, path: valuePath(byNode, linkCase), guards: guardsOf(byNode, linkCase) } }),
      };
    });
    await inBatches(cases, 6, async (c) => {
      admin.set(c.linkCase.name, outcomeOf((await post('admin', c.query, c.variables)).body, c.path));
      if (c.byNode) adminByNode.set(c.linkCase.name, outcomeOf((await post('admin', c.byNode.query, c.byNode.variables)).body, c.byNode.path));
    });
    const asked = cases.flatMap((c) => ROLES.map((role) => ({ c, role })));
    const record = (c: HttpCase, role: string, entry: Entry, outcome: Outcome) => {
      const key = `${c.linkCase.name}\u0000${role}`;
      if (!answers.has(key)) answers.set(key, new Map());
      answers.get(key)!.set(entry, outcome);
    };
    await inBatches(asked, 6, async ({ c, role }) => {
      record(c, role, 'POST /graphql', outcomeOf((await post(role, c.query, c.variables)).body, c.path));
      const viaGet = await get(role, c.query, c.variables);
      record(c, role, 'GET /graphql', viaGet.status === 200 ? outcomeOf(viaGet.body, c.path) : { failed: [`HTTP ${viaGet.status}: ${JSON.stringify(viaGet.body)}`] });
      if (c.byNode) record(c, role, 'POST /graphql, through node(id)', outcomeOf((await post(role, c.byNode.query, c.byNode.variables)).body, c.byNode.path));
    });
    // An admin asks each document until the fast path serves its answer kept.
    for (const c of cases) {
      for (let attempt = 0; attempt < 5 && !kept.has(c.linkCase.name); attempt += 1) {
        const before = await fastPathAnswers();
        await post('admin', c.query, c.variables);
        if ((await fastPathAnswers()) > before) kept.add(c.linkCase.name);
      }
    }
    await inBatches(asked, 6, async ({ c, role }) => {
      record(c, role, 'POST /graphql, kept answer', outcomeOf((await post(role, c.query, c.variables)).body, c.path));
      const viaGet = await get(role, c.query, c.variables);
      record(c, role, 'GET /graphql, kept answer', viaGet.status === 200 ? outcomeOf(viaGet.body, c.path) : { failed: [`HTTP ${viaGet.status}: ${JSON.stringify(viaGet.body)}`] });
    });
  }, 60_000);

  it('has a seeded record for the parent of every link', () => {
    expect([...new Set(LINKS.map((link) => link.parent))].filter((type) => !records.has(type))).toEqual([]);
  });

  it('reaches records through every link as an admin (the seed holds one at each)', () => {
    const empty = cases.flatMap((c) => {
      const outcomes = [admin.get(c.linkCase.name), ...(c.byNode ? [adminByNode.get(c.linkCase.name)] : [])];
      return outcomes.filter((outcome) => !outcome || !('data' in outcome) || isEmpty(outcome.data)).map((outcome) => [c.linkCase.name, outcome]);
    });
    expect(empty).toEqual([]);
  });

  it("keeps an admin's answer of documents rooted at a published read, so the kept-answer entries are served kept answers", () => {
    const keepable = cases.filter((c) => c.route.root.name !== 'node(id)' && PUBLISHED_READS.tables[c.route.root.name]);
    expect(keepable.length).toBeGreaterThan(0);
    expect(keepable.filter((c) => kept.has(c.linkCase.name)).length).toBeGreaterThan(0);
  });

  describe.each(ALL_CASES.map((linkCase) => [linkCase.name] as const))('%s', (name) => {
    it.each(ROLES)(`as %s: refused with FORBIDDEN where the policy says so, else the records an admin gets, over every HTTP entry`, (role) => {
      const c = cases.find((each) => each.linkCase.name === name);
      expect([name, c ? 'seeded' : 'no record of its parent type is seeded']).toEqual([name, 'seeded']);
      const got = answers.get(`${name}\u0000${role}`)!;
      const adminData = admin.get(name)!;
      const expected = expectedOutcome(role, c!.guards, 'data' in adminData ? adminData.data : adminData);
      const byNodeAdmin = adminByNode.get(name);
      const byNodeExpected = c!.byNode && byNodeAdmin && expectedOutcome(role, c!.byNode.guards, 'data' in byNodeAdmin ? byNodeAdmin.data : byNodeAdmin);
      const entries = ENTRIES.filter((entry) => got.has(entry));
      expect(Object.fromEntries(entries.map((entry) => [entry, got.get(entry)]))).toEqual(
        Object.fromEntries(entries.map((entry) => [entry, entry === 'POST /graphql, through node(id)' ? byNodeExpected : expected])),
      );
    });
  });
});

describe('a record reached through a link, over graphql-ws and SSE', () => {
  interface LiveCase {
    linkCase: LinkCase;
    query: string;
    variables: Record<string, unknown>;
    path: string[];
    guards: Guard[];
  }
  let liveCases: LiveCase[] = [];
  const deliveries = new Map<string, { ws: Delivery; sse: Delivery }>();
  /** Each role's answer to the same link asked over POST once the event was delivered, through node(id) of the event's dataset. */
  const reference = new Map<string, { outcome: Outcome; guards: Guard[] }>();
  const adminReference = new Map<string, Outcome>();

  beforeAll(async () => {
    const root = liveRoot(LIVE_DATASET);
    liveCases = LIVE_CASES.map(({ linkCase, hops }) => {
      const route = { root, hops };
      return { linkCase, query: documentOf('subscription', route, linkCase), variables: root.variables, path: valuePath(route, linkCase), guards: guardsOf(route, linkCase) };
    });
    // Every role subscribes to every link over both transports, all at once, with the same
    // documents: subscribers to one document may share one evaluation, never its access.
    await Promise.all(
      liveCases.flatMap((c) =>
        ROLES.map(async (role) => {
          const ws = subscribeOverWs(role, c.query, c.variables);
          const sse = await subscribeOverSse(role, c.query, c.variables);
          deliveries.set(`${c.linkCase.name}\u0000${role}`, { ws, sse });
        }),
      ),
    );
    const admitted = () => [...deliveries.values()].flatMap(({ ws, sse }) => [ws, sse]).filter((delivery) => !delivery.refused);
    // A WebSocket subscription says nothing when it is admitted: the dataset is changed again until
    // every admitted subscription has had an event (the first change usually does), then each one's
    // last event is compared (every subscription gets the last change).
    const latestAt = (delivery: Delivery) => (delivery.results.at(-1)?.data as { [LIVE_ROOT]?: { at?: string } } | undefined)?.[LIVE_ROOT]?.at;
    await adminGraphql('mutation($id: ID!) { editDataset(id: $id) { id } }', { id: LIVE_DATASET });
    for (let change = 1; change < 5 && !(await until(() => admitted().every((delivery) => delivery.results.length > 0 || delivery.refused), 2_000)); change += 1) {
      const draft = await adminGraphql('query($id: ID!) { dataset(id: $id, version: DRAFT) { versionKey } }', { id: LIVE_DATASET });
      await adminGraphql('mutation($input: UpdateDatasetInput!) { updateDataset(input: $input) { id } }', {
        input: { id: LIVE_DATASET, versionKey: draft.dataset.versionKey, sampleData: { change } },
      });
    }
    await until(() => {
      const last = admitted().map(latestAt);
      return last.every((at) => at !== undefined && at === last[0]);
    }, 5_000);
    // The event's dataset (the newest version), as the admin's subscriptions were sent it.
    const adminLive = deliveries.get(`${liveCases[0]!.linkCase.name}\u0000admin`)!.ws.results.at(-1)?.data as { [LIVE_ROOT]: { dataset: { id: string } } } | undefined;
    const eventDataset = adminLive?.[LIVE_ROOT].dataset.id ?? globalId('Dataset', LIVE_DATASET, 'draft');
    await inBatches(
      liveCases.flatMap((c) => ROLES.map((role) => ({ c, role }))),
      6,
      async ({ c, role }) => {
        const hops = LIVE_CASES.find((each) => each.linkCase === c.linkCase)!.hops;
        const route = { root: nodeRoot(LIVE_PARENT, { globalId: eventDataset }), hops };
        const outcome = outcomeOf((await post(role, documentOf('query', route, c.linkCase), route.root.variables)).body, valuePath(route, c.linkCase));
        reference.set(`${c.linkCase.name}\u0000${role}`, { outcome, guards: guardsOf(route, c.linkCase) });
        if (role === 'admin') adminReference.set(c.linkCase.name, outcome);
      },
    );
    for (const { ws, sse } of deliveries.values()) {
      ws.stop();
      sse.stop();
    }
  }, 60_000);

  /** What a delivery comes to: its refusal, or its last event. */
  function deliveredOutcome(delivery: Delivery, path: string[]): Outcome {
    if (delivery.refused) return outcomeOf(delivery.refused, path);
    const last = delivery.results.at(-1);
    return last ? outcomeOf(last, path) : { failed: ['no event was delivered'] };
  }

  it('sends an admin records through every link the event reaches (the seed holds one at each)', () => {
    const empty = liveCases.flatMap((c) => {
      const { ws, sse } = deliveries.get(`${c.linkCase.name}\u0000admin`)!;
      return [ws, sse].map((delivery) => [c.linkCase.name, delivery.transport, deliveredOutcome(delivery, c.path)] as const).filter(([, , outcome]) => !('data' in outcome) || isEmpty(outcome.data));
    });
    expect(empty).toEqual([]);
  });

  describe.each(LIVE_CASES.map(({ linkCase }) => [linkCase.name] as const))('%s', (name) => {
    it.each(ROLES)('as %s: the same refusal or records as the policy gives over POST, on graphql-ws and on SSE', (role) => {
      const c = liveCases.find((each) => each.linkCase.name === name)!;
      const adminOutcome = adminReference.get(name)!;
      const adminData = 'data' in adminOutcome ? adminOutcome.data : adminOutcome;
      const { outcome: overPost, guards: postGuards } = reference.get(`${name}\u0000${role}`)!;
      const expected = expectedOutcome(role, c.guards, adminData);
      const { ws, sse } = deliveries.get(`${name}\u0000${role}`)!;
      expect({ 'POST /graphql': overPost, 'graphql-ws': deliveredOutcome(ws, c.path), SSE: deliveredOutcome(sse, c.path) }).toEqual({
        'POST /graphql': expectedOutcome(role, postGuards, adminData),
        'graphql-ws': expected,
        SSE: expected,
      });
      // A subscription refused before it runs: over SSE, with 403.
      if ('refused' in expected && expected.at === LIVE_ROOT) expect(['SSE status', sse.status]).toEqual(['SSE status', 403]);
    });
  });

  const blind = ROLES.filter((role) => !policy.allows([role], readIds('QueryTemplate')));
  it.each(blind)("never sends %s, who may not read templates, a template's query text over graphql-ws or SSE", (role) => {
    const leaks = liveCases.flatMap((c) => {
      const { ws, sse } = deliveries.get(`${c.linkCase.name}\u0000${role}`)!;
      return [ws, sse].flatMap((delivery) => templateTexts.filter((text) => delivery.text().includes(JSON.stringify(text).slice(1, -1))).map(() => `${c.linkCase.name} over ${delivery.transport}`));
    });
    // The check could find a leak: an admin's deliveries hold the templates' query text.
    const toAdmin = liveCases.flatMap((c) => Object.values(deliveries.get(`${c.linkCase.name}\u0000admin`)!).map((delivery) => delivery.text()));
    expect(templateTexts.filter((text) => toAdmin.some((sent) => sent.includes(JSON.stringify(text).slice(1, -1))))).not.toEqual([]);
    expect(leaks).toEqual([]);
  });
});

describe('root fields', () => {
  const roots = rootFields();
  const queries = roots.filter((root) => root.operation === 'query');
  const mutations = roots.filter((root) => root.operation === 'mutation');
  const subscriptions = subscriptionFields();
  const allows = (role: string, root: RootField) => isPublic(root) || policy.allows([role], root.apiIds);

  /** Refused (FORBIDDEN or UNAUTHENTICATED on the field, no value) when the policy denies the role, else executed without either. */
  function expectDecided(result: ProbeResult, root: RootField, role: string, entry: string) {
    const codes = fieldErrorCodes(result, root);
    expect([entry, 'status', result.status]).toEqual([entry, 'status', 200]);
    expect([entry, 'an executed answer', 'data' in result.body]).toEqual([entry, 'an executed answer', true]);
    if (allows(role, root)) {
      expect([entry, codes.filter((code) => REFUSALS.includes(code ?? ''))]).toEqual([entry, []]);
    } else {
      expect([entry, codes.length > 0 && codes.every((code) => REFUSALS.includes(code ?? ''))]).toEqual([entry, true]);
      expect([entry, result.body.data?.[root.field.name] ?? null]).toEqual([entry, null]);
    }
  }

  it.each(queries.flatMap((root) => ROLES.map((role) => [root.coordinate, role, root] as const)))(
    '%s as %s: refused over POST and GET exactly when the policy denies it',
    async (_name, role, root) => {
      expectDecided(await callField(gw, root, { authorization: bearer.get(role)! }), root, role, 'POST /graphql');
      const { query, variables } = fieldRequest(root);
      const viaGet = await get(role, query, variables);
      expectDecided({ status: viaGet.status, body: viaGet.body as ProbeResult['body'] }, root, role, 'GET /graphql');
    },
  );

  const deniedMutations = mutations.flatMap((root) => ROLES.filter((role) => !allows(role, root)).map((role) => [root.coordinate, role, root] as const));
  it.each(deniedMutations)('%s as %s: refused over POST, as the policy denies it', async (_name, role, root) => {
    expectDecided(await callField(gw, root, { authorization: bearer.get(role)! }), root, role, 'POST /graphql');
  });

  describe('subscriptions', () => {
    const outcomes = new Map<string, { ws: Delivery; sse: Delivery }>();

    beforeAll(async () => {
      await Promise.all(
        subscriptions.flatMap((root) =>
          ROLES.map(async (role) => {
            const { query, variables } = fieldRequest(root);
            const ws = subscribeOverWs(role, query, variables);
            const sse = await subscribeOverSse(role, query, variables);
            outcomes.set(`${root.coordinate}\u0000${role}`, { ws, sse });
          }),
        ),
      );
      // A refusal comes before the subscription runs; what has not been refused once the expected
      // refusals came (and a moment more) was admitted.
      const denied = [...outcomes.entries()].filter(([key]) => {
        const [coordinate, role] = key.split('\u0000') as [string, string];
        return !allows(
          role,
          subscriptions.find((root) => root.coordinate === coordinate)!,
        );
      });
      await until(() => denied.every(([, { ws }]) => ws.refused), 5_000);
      await sleep(300);
      for (const { ws, sse } of outcomes.values()) {
        ws.stop();
        sse.stop();
      }
    }, 30_000);

    it.each(subscriptions.flatMap((root) => ROLES.map((role) => [root.coordinate, role, root] as const)))(
      '%s as %s: refused over graphql-ws (an error message) and SSE (403) exactly when the policy denies it',
      (_name, role, root) => {
        const { ws, sse } = outcomes.get(`${root.coordinate}\u0000${role}`)!;
        const codes = (delivery: Delivery) => (delivery.refused?.errors ?? []).map((error) => error.extensions?.code);
        if (allows(role, root)) {
          expect(['graphql-ws', codes(ws).filter((code) => REFUSALS.includes(code ?? ''))]).toEqual(['graphql-ws', []]);
          expect(['SSE', [401, 403].includes(sse.status!), codes(sse).filter((code) => REFUSALS.includes(code ?? ''))]).toEqual(['SSE', false, []]);
        } else {
          expect(['graphql-ws', codes(ws)]).toEqual(['graphql-ws', ['FORBIDDEN']]);
          expect(['SSE', sse.status, codes(sse)]).toEqual(['SSE', 403, ['FORBIDDEN']]);
          expect(['graphql-ws results', ws.results]).toEqual(['graphql-ws results', []]);
        }
      },
    );
  });
});

describe('REST', () => {
  const denied = endpoints.flatMap((endpoint) => ROLES.filter((role) => !policy.allows([role], [endpoint.apiId])).map((role) => [endpointName(endpoint), role, endpoint] as const));
  it.each(denied)('%s as %s: refused with 403 FORBIDDEN, as the policy denies it', async (_name, role, endpoint) => {
    const response = await callEndpoint(gw, endpoint, { authorization: bearer.get(role)! });
    expect([response.status, response.body.error?.code]).toEqual([403, 'FORBIDDEN']);
  });
});
