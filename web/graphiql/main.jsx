// Self-hosted GraphiQL 5 page for the Data Platform Gateway.
// Bundled by scripts/build-graphiql.mjs into dist/graphiql/graphiql.js (+ .css).
// Everything is served from the gateway itself: no CDN, no external URLs.

// Must come first: defines globalThis.MonacoEnvironment before monaco loads.
import './setup-workers.js';

import { createRoot } from 'react-dom/client';
import { GraphiQL } from 'graphiql';
import { useGraphiQL, useGraphiQLActions } from '@graphiql/react';
import { explorerPlugin } from '@graphiql/plugin-explorer';
import { createGraphiQLFetcher } from '@graphiql/toolkit';
import { createClient } from 'graphql-ws';
import 'graphiql/style.css';
import '@graphiql/plugin-explorer/style.css';

const DEFAULT_QUERY = `# Data Platform Gateway — GraphiQL
#
# This editor talks to the gateway's GraphQL endpoint
# (Apollo Server), which fronts the platform's
# data-ingestion and analytics APIs.
#
#   Run the query:   Ctrl-Enter (or the ▶ button)
#   Browse schema:   Docs button in the left sidebar
#   Autocomplete:    Ctrl-Space
#
#   Build a query:   the Explorer (folder icon): tick fields
#   Ready examples:  the Examples (book icon): the gateway's
#                    persisted operations, one click each
#
# Requests are JSON POSTs carrying an
# \`apollo-require-preflight\` header, so they pass Apollo's
# CSRF prevention. The Headers tab below holds what this
# gateway's AUTH_MODE needs (fill in the token, if asked).

# A dashboard page in one query: Live datasets with their health,
# ingestion counts, connectors and alert rules. Every \`id\` is a
# global id that node(id:) refetches; datasetId is the dataset's own id.
query DatasetDashboard {
  datasets(first: 20, where: { status: { eq: LIVE } }) {
    totalCount
    nodes {
      id
      datasetId
      name
      status
      health {
        status
      }
      ingestion {
        received
        processed
        failed
      }
      connectorPage(first: 10) {
        totalCount
        nodes {
          instanceId
          connector {
            name
            status
          }
        }
      }
      alertRulePage(first: 10) {
        totalCount
        nodes {
          name
          status
          channelPage(first: 5) {
            nodes {
              name
            }
          }
        }
      }
    }
  }
}
`;

const params = new URLSearchParams(window.location.search);
const endpoint = document.body.dataset.endpoint || '/graphql';

// Subscriptions run over GraphQL over WebSocket on the same path (the gateway's graphql-ws server).
// Browsers cannot set headers on a WebSocket, so the Headers tab (e.g. authorization, x-api-key) is
// sent as connection_init's payload: one client per distinct set of headers, made when first used.
const subscriptionUrl = new URL(endpoint, window.location.href);
subscriptionUrl.protocol = subscriptionUrl.protocol === 'https:' ? 'wss:' : 'ws:';
const fetchers = new Map();
function fetcherFor(headers) {
  const key = JSON.stringify(headers ?? {});
  let made = fetchers.get(key);
  if (!made) {
    made = createGraphiQLFetcher({
      url: endpoint,
      headers: { 'apollo-require-preflight': 'true' },
      wsClient: createClient({ url: subscriptionUrl.href, lazy: true, retryAttempts: 0, connectionParams: headers ?? {} }),
    });
    fetchers.set(key, made);
  }
  return made;
}
const fetcher = (params, options) => fetcherFor(options?.headers)(params, options);

// ?query=... prefills the operation editor (overrides the stored tab query);
// ?variables=... prefills the variables editor.
const initialQuery = params.get('query') ?? undefined;
const initialVariables = params.get('variables') ?? undefined;

// The operations of graphql/operations/ (the allow list), each opened in a tab of its own by a click.
function ExamplesList({ examples }) {
  const { addTab, setOperationName } = useGraphiQLActions();
  const queryEditor = useGraphiQL((state) => state.queryEditor);
  const open = ({ name, body }) => {
    addTab();
    // The new tab's editor model is in place once React has rendered it. GraphiQL reads the
    // operation's name from the editor 100 ms after a change; named at once, a run pressed sooner
    // does not send the previous tab's operation name.
    setTimeout(() => {
      queryEditor?.setValue(body);
      setOperationName(name);
    }, 0);
  };
  const kinds = ['query', 'mutation', 'subscription'];
  return (
    <div className="gateway-examples">
      <div className="graphiql-doc-explorer-title">Examples</div>
      <p>The gateway's persisted operations (graphql/operations/). Click one to open it in a new tab.</p>
      {kinds.map((kind) => {
        const ofKind = examples.filter((example) => example.type === kind);
        if (ofKind.length === 0) return null;
        return (
          <section key={kind}>
            <h3>{kind === 'query' ? 'Queries' : kind === 'mutation' ? 'Mutations' : 'Subscriptions'}</h3>
            <ul>
              {ofKind.map((example) => (
                <li key={example.name}>
                  <button type="button" className="gateway-example" data-example={example.name} onClick={() => open(example)}>
                    {example.name}
                  </button>
                </li>
              ))}
            </ul>
          </section>
        );
      })}
    </div>
  );
}

const BookIcon = () => (
  <svg height="1em" viewBox="0 0 24 24" fill="none" stroke="currentColor" strokeWidth="1.5" aria-hidden="true">
    <path d="M4 19.5V5a2 2 0 0 1 2-2h14v16H6a2 2 0 0 0-2 2Zm0 0A2 2 0 0 0 6 21.5h14" strokeLinecap="round" strokeLinejoin="round" />
  </svg>
);

function examplesPlugin(examples) {
  return { title: 'Examples', icon: BookIcon, content: () => <ExamplesList examples={examples} /> };
}

// What depends on this gateway: the headers its auth mode needs and the allow list's operations.
async function gatewaySetup() {
  try {
    const answer = await fetch('/graphiql/setup.json', { headers: { accept: 'application/json' } });
    if (answer.ok) return await answer.json();
  } catch (error) {
    console.warn('graphiql: /graphiql/setup.json did not answer', error);
  }
  return { headers: '{}', examples: [] };
}

let container = document.getElementById('graphiql');
if (!container) {
  container = document.createElement('div');
  container.id = 'graphiql';
  document.body.append(container);
}

const setup = await gatewaySetup();
const explorer = explorerPlugin();
const examples = examplesPlugin(setup.examples);
// ?panel=explorer or ?panel=examples opens that pane at once.
const panel = { explorer, examples }[params.get('panel') ?? ''];

createRoot(container).render(
  <GraphiQL
    fetcher={fetcher}
    plugins={[explorer, examples]}
    visiblePlugin={panel}
    defaultQuery={DEFAULT_QUERY}
    initialQuery={initialQuery}
    initialVariables={initialVariables}
    defaultHeaders={setup.headers}
    initialHeaders={setup.headers}
  />,
);

// ?autorun=1 (used for screenshots): once the editors are mounted, press the
// execute button exactly once.
const autorun = params.get('autorun');
if (autorun && autorun !== '0' && autorun !== 'false') {
  const started = Date.now();
  const timer = setInterval(() => {
    const button = document.querySelector('.graphiql-execute-button');
    const editor = document.querySelector('.graphiql-query-editor .monaco-editor');
    if (button && editor) {
      clearInterval(timer);
      // Give the editor a moment to register itself with the GraphiQL store.
      setTimeout(() => button.click(), 300);
    } else if (Date.now() - started > 30_000) {
      clearInterval(timer);
      console.warn('graphiql autorun: editor did not become ready in 30s');
    }
  }, 100);
}

// ?docs=1 (used by the browser test): open the Docs pane once the sidebar is there, so the page
// shows the schema's root types (or GraphiQL's "Error fetching schema" when introspection fails).
const docs = params.get('docs');
if (docs && docs !== '0' && docs !== 'false') {
  const started = Date.now();
  const timer = setInterval(() => {
    const button = document.querySelector('[aria-label="Show Documentation Explorer"]');
    if (button) {
      clearInterval(timer);
      button.click();
    } else if (Date.now() - started > 30_000) {
      clearInterval(timer);
      console.warn('graphiql docs: the sidebar did not appear in 30s');
    }
  }, 100);
}
