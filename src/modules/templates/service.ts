// Every business rule of query templates lives here; both transports call these functions.
import type { Actor } from '../../auth/actor.js';
import DataLoader from 'dataloader';
import { GatewayError, type ErrorCode } from '../../errors.js';
import { checkTemplateId, checkTemplateName, checkTemplateQuery, isQueryType, templateIdFromName } from './rules.js';
import type { ListArguments } from '../../platform/lists/list-query.js';
import type { RunInput } from './run.js';
import { isUniqueViolation, type TemplateStore } from './store.js';
import type { CreateTemplateInput, QueryType, TemplateListQuery, TemplatePage, TemplateRecord, UpdateTemplateInput } from './types.js';

export interface TemplateServiceOptions {
  /** Most templates one list call returns. */
  listMax: number;
  /** Runs a template against a Live dataset (see run.ts). */
  runner: (template: TemplateRecord, input: RunInput) => Promise<unknown[]>;
}

// A name in a query: a run of the characters dataset ids are made of (a quoted or bare identifier,
// or a JSON string such as a native query's dataSource). Placeholders ({{DATASET}}) name none.
const QUERY_NAME = /[A-Za-z0-9_.-]+/g;
const PLACEHOLDER = /\{\{[A-Za-z]+\}\}/g;
/** Most names of one query looked up as dataset ids. */
export const QUERY_NAMES_MAX = 200;

/** The distinct names a template's query holds (what may be a dataset id), in order. */
export function namesInQuery(query: string): string[] {
  return [...new Set(query.replace(PLACEHOLDER, ' ').match(QUERY_NAME) ?? [])].slice(0, QUERY_NAMES_MAX);
}

export function createTemplateService(store: TemplateStore, options: TemplateServiceOptions) {
  function notFound(id: string): GatewayError {
    return new GatewayError('QUERY_TEMPLATE_NOT_EXISTS', `Template ${id} does not exist`);
  }

  function alreadyExists(name: string): GatewayError {
    return new GatewayError('QUERY_TEMPLATE_ALREADY_EXISTS', `Template ${name} already exists`);
  }

  /** Validates a type and query pair; `code` differs between create and update, as the contract says. */
  function validQuery(queryType: string, query: string, code: ErrorCode): { queryType: QueryType; text: string } {
    if (!isQueryType(queryType)) {
      throw new GatewayError(code, `query_type must be one of sql, json (got ${JSON.stringify(queryType).slice(0, 40)})`);
    }
    const checked = checkTemplateQuery(queryType, query);
    if (checked.problem !== undefined) throw new GatewayError(code, checked.problem);
    return { queryType, text: checked.text! };
  }

  function validName(name: string, code: ErrorCode): string {
    const problem = checkTemplateName(name);
    if (problem) throw new GatewayError(code, problem);
    return name;
  }

  /** An id no template can have is the caller's mistake, said as such on both transports (not a 404). */
  function checkedId(id: string): string {
    const problem = checkTemplateId(id);
    if (problem) throw new GatewayError('QUERY_TEMPLATE_INVALID_INPUT', problem);
    return id;
  }

  async function get(id: string, loader?: DataLoader<string, TemplateRecord | undefined>): Promise<TemplateRecord> {
    checkedId(id);
    const record = loader ? await loader.load(id) : await store.findById(id);
    if (!record) throw notFound(id);
    return record;
  }

  return {
    /** Batches every template lookup of one request into one query. */
    createLoader(): DataLoader<string, TemplateRecord | undefined> {
      return new DataLoader(async (ids) => {
        const found = new Map((await store.findByIds(ids)).map((record) => [record.templateId, record]));
        return ids.map((id) => found.get(id));
      });
    },

    get,

    /** The templates whose query names each dataset (see namedInQuery), newest first, one statement per request's batch. */
    createDatasetLoader(): DataLoader<string, TemplateRecord[]> {
      return new DataLoader(async (datasetIds) => {
        const candidates = await store.mentioning(datasetIds);
        return datasetIds.map((datasetId) => candidates.filter((template) => namesInQuery(template.query).includes(datasetId)));
      });
    },

    /**
     * A page of the templates whose query names a dataset (`Dataset.templatePage`), by the template
     * list's contract; the datasets of one request that ask alike share one statement (`request`).
     */
    datasetTemplatePage(request: object, datasetId: string, args: ListArguments): Promise<TemplatePage> {
      return store.datasetPage(request, datasetId, args, options.listMax);
    },

    /** A page of templates; with `fields` (what the reader's selection needs), each record holds only those. */
    async list(query: TemplateListQuery, fields?: ReadonlySet<string>): Promise<TemplatePage> {
      return store.page(query, options.listMax, fields);
    },

    async create(input: CreateTemplateInput, actor: Actor): Promise<TemplateRecord> {
      const templateName = validName(input.templateName, 'QUERY_TEMPLATE_INVALID');
      const { queryType, text } = validQuery(input.queryType, input.query, 'QUERY_TEMPLATE_INVALID');
      const templateId = templateIdFromName(templateName);
      if (await store.findClash(templateId, templateName)) throw alreadyExists(templateName);
      try {
        return await store.insert({ templateId, templateName, query: text, queryType, createdBy: actor.id, updatedBy: actor.id });
      } catch (error) {
        // Two creates of the same name racing: the database keeps one and the other learns here.
        if (isUniqueViolation(error)) throw alreadyExists(templateName);
        throw error;
      }
    },

    async update(id: string, input: UpdateTemplateInput, actor: Actor): Promise<TemplateRecord> {
      const code = 'QUERY_TEMPLATE_INVALID_INPUT';
      checkedId(id);
      const hasQuery = input.query !== undefined && input.query !== null;
      const hasType = input.queryType !== undefined && input.queryType !== null;
      const hasName = input.templateName !== undefined && input.templateName !== null;
      if (hasQuery && !hasType) throw new GatewayError(code, 'query_type is required when query is given');
      if (hasType && !hasQuery) throw new GatewayError(code, 'query is required when query_type is given');
      if (!hasQuery && !hasName) throw new GatewayError(code, 'nothing to update: give template_name, or query together with query_type');

      const changes: Parameters<TemplateStore['update']>[1] = { updatedBy: actor.id };
      if (hasName) changes.templateName = validName(input.templateName!, code);
      if (hasQuery) {
        const { queryType, text } = validQuery(input.queryType!, input.query!, code);
        changes.queryType = queryType;
        changes.query = text;
      }
      if (changes.templateName !== undefined) {
        // The id stays; the new name must not be taken, nor map to another template's id.
        if (await store.findClash(templateIdFromName(changes.templateName), changes.templateName, id)) {
          throw alreadyExists(changes.templateName);
        }
      }
      let updated: TemplateRecord | undefined;
      try {
        updated = await store.update(id, changes);
      } catch (error) {
        if (isUniqueViolation(error)) throw alreadyExists(changes.templateName ?? id);
        throw error;
      }
      if (!updated) throw notFound(id);
      return updated;
    },

    /** Runs a template: its own checks first (404 for an unknown template), then the run's. */
    async run(id: string, input: RunInput, loader?: DataLoader<string, TemplateRecord | undefined>): Promise<unknown[]> {
      return options.runner(await get(id, loader), input);
    },

    async delete(id: string): Promise<void> {
      if (!(await store.delete(checkedId(id)))) throw notFound(id);
    },
  };
}

export type TemplateService = ReturnType<typeof createTemplateService>;
