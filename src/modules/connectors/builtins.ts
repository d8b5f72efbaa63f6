// The connectors a user expects on a fresh gateway, seeded at start-up (idempotently: an id that
// exists is left as it is). Their ui specs are full form descriptions as contract 2.4 and 8 give
// them: `connector_config` and `operations_config`, ports 1-65535, names of letters, digits and
// underscores (1-64), batch_size 100 and max_batches 10 by default, secrets marked `encrypt`.
import type { ConnectorValues, JsonObject } from './types.js';

const NAME_PATTERN = '^[A-Za-z0-9_]{1,64}$';

function describe(description: string) {
  return { fieldDescription: [{ type: 'string', description }] };
}

function svgIcon(label: string, colour: string): string {
  const svg =
    `<svg xmlns="http://www.w3.org/2000/svg" width="64" height="64" viewBox="0 0 64 64">` +
    `<rect width="64" height="64" rx="12" fill="${colour}"/>` +
    `<text x="32" y="40" font-family="sans-serif" font-size="22" font-weight="bold" fill="#fff" text-anchor="middle">${label}</text></svg>`;
  return `data:image/svg+xml;base64,${Buffer.from(svg).toString('base64')}`;
}

/** How often and how much a connector pulls: the same for every built-in connector. */
function operationsConfig(): JsonObject {
  return {
    title: 'Operations Configuration',
    type: 'object',
    properties: {
      batch_size: { title: 'Batch Size', type: 'integer', default: 100, minimum: 1, maximum: 100_000, ...describe('Records read per batch') },
      max_batches: { title: 'Maximum Batches', type: 'integer', default: 10, minimum: 1, maximum: 10_000, ...describe('Batches read per run') },
      pollingInterval: { title: 'Polling Interval', type: 'string', enum: ['Once', 'Periodic'], default: 'Periodic', ...describe('Run once, or on a schedule') },
    },
    required: ['batch_size', 'max_batches', 'pollingInterval'],
    dependencies: {
      pollingInterval: {
        oneOf: [
          { properties: { pollingInterval: { enum: ['Once'] } } },
          {
            properties: {
              pollingInterval: { enum: ['Periodic'] },
              schedule: { title: 'Schedule', type: 'string', enum: ['Hourly', 'Daily', 'Weekly', 'Monthly'], default: 'Hourly', ...describe('How often to run') },
            },
            required: ['schedule'],
          },
        ],
      },
    },
  };
}

const OPERATIONS_UI = { batch_size: { 'ui:widget': 'updown' }, max_batches: { 'ui:widget': 'updown' } };

/** A relational database read over JDBC, table by table, by an increasing timestamp column. */
function jdbcUiSpec(databaseType: string, title: string, defaultPort: number): JsonObject {
  return {
    schema: {
      type: 'object',
      properties: {
        connector_config: {
          title: `${title} Connection`,
          type: 'object',
          encrypt: true,
          properties: {
            database_type: { title: 'Database Type', type: 'string', enum: [databaseType], default: databaseType },
            host: { title: 'Host', type: 'string', minLength: 1, maxLength: 255, ...describe(`Host name or IP address of the ${title} server`) },
            port: { title: 'Port', type: 'integer', minimum: 1, maximum: 65535, default: defaultPort, ...describe('TCP port of the server') },
            name: { title: 'Database Name', type: 'string', pattern: NAME_PATTERN, ...describe('Letters, digits and underscores, 1 to 64 characters') },
            table: { title: 'Table Name', type: 'string', pattern: NAME_PATTERN, ...describe('Letters, digits and underscores, 1 to 64 characters') },
            timestamp_column: { title: 'Timestamp Column', type: 'string', pattern: NAME_PATTERN, default: 'updated_at', ...describe('Column telling which rows are new since the last run') },
            username: { title: 'User', type: 'string', minLength: 1, maxLength: 128 },
            password: { title: 'Password', type: 'string', minLength: 1, maxLength: 512, encrypt: true },
            ssl_mode: { title: 'SSL Mode', type: 'string', enum: ['disable', 'require', 'verify-full'], default: 'require' },
          },
          required: ['database_type', 'host', 'port', 'name', 'table', 'username', 'password'],
          dependencies: {
            ssl_mode: {
              oneOf: [
                { properties: { ssl_mode: { enum: ['disable', 'require'] } } },
                {
                  properties: {
                    ssl_mode: { enum: ['verify-full'] },
                    ca_certificate: { title: 'CA Certificate (PEM)', type: 'string', encrypt: true, ...describe('Certificate authority that signed the server certificate') },
                  },
                  required: ['ca_certificate'],
                },
              ],
            },
          },
        },
        operations_config: operationsConfig(),
      },
      required: ['connector_config', 'operations_config'],
    },
    properties: {
      connector_config: {
        database_type: { 'ui:readonly': true },
        host: { 'ui:autofocus': true },
        port: { 'ui:widget': 'updown' },
        password: { 'ui:widget': 'password' },
        ca_certificate: { 'ui:widget': 'textarea' },
      },
      operations_config: OPERATIONS_UI,
    },
  };
}

function kafkaUiSpec(): JsonObject {
  return {
    schema: {
      type: 'object',
      properties: {
        connector_config: {
          title: 'Kafka Connection',
          type: 'object',
          encrypt: true,
          properties: {
            source_kafka_broker_servers: {
              title: 'Bootstrap Servers',
              type: 'string',
              pattern: '^[A-Za-z0-9.-]+:[0-9]{1,5}(,[A-Za-z0-9.-]+:[0-9]{1,5})*$',
              ...describe('host:port pairs separated by commas; ports 1 to 65535'),
            },
            source_kafka_topic: { title: 'Topic', type: 'string', pattern: '^[A-Za-z0-9._-]{1,249}$' },
            source_kafka_consumer_id: { title: 'Consumer Group', type: 'string', pattern: NAME_PATTERN, default: 'obsrv_consumer' },
            source_kafka_auto_offset_reset: { title: 'Start From', type: 'string', enum: ['earliest', 'latest'], default: 'earliest' },
            authentication: { title: 'Authentication', type: 'string', enum: ['none', 'sasl_plain', 'sasl_scram'], default: 'none' },
          },
          required: ['source_kafka_broker_servers', 'source_kafka_topic', 'source_kafka_consumer_id', 'authentication'],
          dependencies: {
            authentication: {
              oneOf: [
                { properties: { authentication: { enum: ['none'] } } },
                {
                  properties: {
                    authentication: { enum: ['sasl_plain', 'sasl_scram'] },
                    username: { title: 'User', type: 'string', minLength: 1, maxLength: 256 },
                    password: { title: 'Password', type: 'string', minLength: 1, maxLength: 512, encrypt: true },
                  },
                  required: ['username', 'password'],
                },
              ],
            },
          },
        },
        operations_config: operationsConfig(),
      },
      required: ['connector_config', 'operations_config'],
    },
    properties: {
      connector_config: { source_kafka_broker_servers: { 'ui:autofocus': true }, password: { 'ui:widget': 'password' } },
      operations_config: OPERATIONS_UI,
    },
  };
}

function objectStoreUiSpec(): JsonObject {
  const source = (type: string, credentials: JsonObject, required: string[]) => ({
    properties: {
      type: { enum: [type] },
      credentials: { title: 'Credentials', type: 'object', encrypt: true, properties: credentials, required },
    },
    required: ['credentials'],
  });
  return {
    schema: {
      type: 'object',
      properties: {
        connector_config: {
          title: 'Object Store Connection',
          type: 'object',
          encrypt: true,
          properties: {
            type: { title: 'Storage Type', type: 'string', enum: ['s3', 'azure_blob', 'gcs'] },
            bucket: { title: 'Bucket or Container', type: 'string', minLength: 3, maxLength: 63, pattern: '^[a-z0-9][a-z0-9.-]{1,61}[a-z0-9]$' },
            prefix: { title: 'Prefix', type: 'string', maxLength: 1024, default: '' },
            file_format: { title: 'File Format', type: 'string', enum: ['jsonl', 'csv', 'parquet', 'avro'], default: 'jsonl' },
          },
          required: ['type', 'bucket', 'file_format'],
          dependencies: {
            type: {
              oneOf: [
                source(
                  's3',
                  {
                    access_key: { title: 'Access Key', type: 'string', maxLength: 128 },
                    secret_key: { title: 'Secret Key', type: 'string', maxLength: 256, encrypt: true },
                    region: { title: 'Region', type: 'string', default: 'us-east-1' },
                  },
                  ['access_key', 'secret_key', 'region'],
                ),
                source('azure_blob', { account_name: { title: 'Account Name', type: 'string', pattern: '^[a-z0-9]{3,24}$' }, account_key: { title: 'Account Key', type: 'string', encrypt: true } }, [
                  'account_name',
                  'account_key',
                ]),
                source(
                  'gcs',
                  {
                    project_id: { title: 'Project', type: 'string' },
                    client_email: { title: 'Service Account E-mail', type: 'string', format: 'email' },
                    private_key: { title: 'Private Key', type: 'string', encrypt: true },
                  },
                  ['project_id', 'client_email', 'private_key'],
                ),
              ],
            },
          },
        },
        operations_config: operationsConfig(),
      },
      required: ['connector_config', 'operations_config'],
    },
    properties: {
      connector_config: { type: { 'ui:autofocus': true }, secret_key: { 'ui:widget': 'password' }, account_key: { 'ui:widget': 'password' }, private_key: { 'ui:widget': 'textarea' } },
      operations_config: OPERATIONS_UI,
    },
  };
}

type BuiltIn = Omit<ConnectorValues, 'updatedBy' | 'status'>;

const VERSION = '1.0.0';

function builtIn(connectorId: string, values: Omit<BuiltIn, 'id' | 'connectorId' | 'version' | 'type' | 'sourceUrl' | 'licence' | 'owner'>): BuiltIn {
  return { id: `${connectorId}-${VERSION}`, connectorId, version: VERSION, type: 'source', licence: 'MIT', owner: 'Data Platform', sourceUrl: null, ...values };
}

export const BUILT_IN_CONNECTORS: readonly BuiltIn[] = [
  builtIn('postgres-connector', {
    name: 'PostgreSQL',
    category: 'Database',
    description: 'Reads new and changed rows of a PostgreSQL table into a dataset, batch by batch.',
    technology: 'scala',
    runtime: 'spark',
    iconUrl: svgIcon('PG', '#336791'),
    uiSpec: jdbcUiSpec('postgresql', 'PostgreSQL', 5432),
    source: { source: `postgres-connector-${VERSION}`, main_class: 'org.sunbird.obsrv.connector.JDBCConnector', main_program: null },
  }),
  builtIn('mysql-connector', {
    name: 'MySQL',
    category: 'Database',
    description: 'Reads new and changed rows of a MySQL table into a dataset, batch by batch.',
    technology: 'scala',
    runtime: 'spark',
    iconUrl: svgIcon('My', '#00758f'),
    uiSpec: jdbcUiSpec('mysql', 'MySQL', 3306),
    source: { source: `mysql-connector-${VERSION}`, main_class: 'org.sunbird.obsrv.connector.JDBCConnector', main_program: null },
  }),
  builtIn('kafka-connector', {
    name: 'Kafka',
    category: 'Stream',
    description: 'Streams the events of a Kafka topic into a dataset.',
    technology: 'scala',
    runtime: 'flink',
    iconUrl: svgIcon('K', '#231f20'),
    uiSpec: kafkaUiSpec(),
    source: { source: `kafka-connector-${VERSION}`, main_class: 'org.sunbird.obsrv.connector.KafkaConnector', main_program: null },
  }),
  builtIn('object-store-connector', {
    name: 'Object Store',
    category: 'File',
    description: 'Reads files (JSON lines, CSV, Parquet, Avro) from an S3 bucket, Azure Blob container or Google Cloud Storage bucket into a dataset.',
    technology: 'python',
    runtime: 'spark',
    iconUrl: svgIcon('S3', '#e25444'),
    uiSpec: objectStoreUiSpec(),
    source: { source: `object-store-connector-${VERSION}`, main_class: null, main_program: 'object_store_connector/__main__.py' },
  }),
];
