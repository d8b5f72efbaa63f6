// Domain types of query templates, shared by the service, the store and the GraphQL mappers.
import type { ListArguments, ListPage } from '../../platform/lists/list-query.js';

export const QUERY_TYPES = ['sql', 'json'] as const;
export type QueryType = (typeof QUERY_TYPES)[number];

export interface TemplateRecord {
  templateId: string;
  templateName: string;
  query: string;
  queryType: QueryType;
  createdBy: string;
  updatedBy: string;
  createdDate: Date;
  updatedDate: Date;
}

export const TEMPLATE_SORT_FIELDS = ['createdDate', 'updatedDate', 'templateName', 'templateId'] as const;
export type TemplateSortField = (typeof TEMPLATE_SORT_FIELDS)[number];
/** A template list request: the list contract's arguments (src/platform/lists). */
export type TemplateListQuery = ListArguments;

export type TemplatePage = ListPage<TemplateRecord>;

export interface CreateTemplateInput {
  templateName: string;
  queryType: string;
  /** SQL text, or for JSON templates a Druid native query as JSON text. */
  query: string;
}

export interface UpdateTemplateInput {
  templateName?: string | null;
  queryType?: string | null;
  query?: string | null;
}

/** GraphQL's QueryType values and what this domain calls each (resolvers, codegen and REST all read this). */
export const QUERY_TYPE_VALUES = { SQL: 'sql', JSON: 'json' } as const;

/** GraphQL's QueryTemplateSortField values and what this domain calls each (resolvers, codegen and REST all read this). */
export const QUERY_TEMPLATE_SORT_FIELD_VALUES = { CREATED_DATE: 'createdDate', UPDATED_DATE: 'updatedDate', TEMPLATE_NAME: 'templateName', TEMPLATE_ID: 'templateId' } as const;

/** GraphQL's AggregationLevel values and what this domain calls each (resolvers, codegen and REST all read this). */
export const AGGREGATION_LEVEL_VALUES = {
  FIVE_MINUTE: 'five_minute',
  TEN_MINUTE: 'ten_minute',
  FIFTEEN_MINUTE: 'fifteen_minute',
  THIRTY_MINUTE: 'thirty_minute',
  HOUR: 'hour',
  SIX_HOUR: 'six_hour',
  EIGHT_HOUR: 'eight_hour',
  DAY: 'day',
  WEEK: 'week',
  MONTH: 'month',
  QUARTER: 'quarter',
  YEAR: 'year',
} as const;
