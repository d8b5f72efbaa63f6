// Monaco web-worker wiring for the self-hosted GraphiQL page.
//
// Must be imported before anything that loads monaco-editor (see main.jsx).
// The three workers are bundled separately by scripts/build-graphiql.mjs as
// classic (IIFE) scripts into dist/graphiql/workers/, next to graphiql.js, so
// they are resolved relative to this bundle's own URL. graphiql's own
// `graphiql/setup-workers/*` helpers assume Vite/webpack `?worker` handling or
// the esm.sh CDN, neither of which applies here.

function workerUrl(file) {
  switch (file) {
    case 'json':
      return new URL('./workers/json.worker.js', import.meta.url);
    case 'graphql':
      return new URL('./workers/graphql.worker.js', import.meta.url);
    default:
      return new URL('./workers/editor.worker.js', import.meta.url);
  }
}

globalThis.MonacoEnvironment = {
  getWorker(_workerId, label) {
    const name = label === 'json' || label === 'graphql' ? label : 'editor';
    return new Worker(workerUrl(name), { name: `monaco-${name}` });
  },
};
