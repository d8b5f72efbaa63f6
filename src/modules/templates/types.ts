// Domain types of query templates, shared by the service, the store and the GraphQL mappers.

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
export type SortDirection = 'asc' | 'desc';

export interface TemplateSort {
  field: TemplateSortField;
  order: SortDirection;
}

export interface TemplateListQuery {
  queryType?: QueryType | null;
  sort?: readonly TemplateSort[] | null;
  /** Page size; at most the configured maximum. */
  limit?: number | null;
  /** Items to skip. */
  offset?: number | null;
}

export interface TemplatePage {
  items: TemplateRecord[];
  /** Position of the first item in the whole sorted list. */
  offset: number;
  hasNextPage: boolean;
  /** Counts every match over all pages; only run when a client asks for it. */
  countAll: () => Promise<number>;
}

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

export type { Actor } from '../../auth/actor.js';
