// Self-hosted GraphiQL 5 page for the Data Platform Gateway.
// Bundled by scripts/build-graphiql.mjs into dist/graphiql/graphiql.js (+ .css).
// Everything is served from the gateway itself: no CDN, no external URLs.

// Must come first: defines globalThis.MonacoEnvironment before monaco loads.
import './setup-workers.js';

import { createRoot } from 'react-dom/client';
import { GraphiQL } from 'graphiql';
import { createGraphiQLFetcher } from '@graphiql/toolkit';
import { createClient } from 'graphql-ws';
import 'graphiql/style.css';

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
# Requests are JSON POSTs carrying an
# \`apollo-require-preflight\` header, so they pass Apollo's
# CSRF prevention. Add other headers (e.g. authorization)
# in the Headers tab below.

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
      connectors {
        instanceId
        connector {
          name
          status
        }
      }
      alertRulePage(first: 10) {
        totalCount
        nodes {
          name
          status
          channels {
            name
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

let container = document.getElementById('graphiql');
if (!container) {
  container = document.createElement('div');
  container.id = 'graphiql';
  document.body.append(container);
}

createRoot(container).render(<GraphiQL fetcher={fetcher} defaultQuery={DEFAULT_QUERY} initialQuery={initialQuery} initialVariables={initialVariables} />);

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
