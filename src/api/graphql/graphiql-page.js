// GraphiQL against Timeslice's graph API, served by src/api/graphql/graphiql.ts after the React,
// ReactDOM and GraphiQL bundles (globals React, ReactDOM, GraphiQL). A file of its own rather
// than an inline script, so that the page's Content-Security-Policy allows scripts from the
// service's origin only.
'use strict';
(() => {
  const GRAPH_URL = '/graphql';
  /** What /graphql reads the user key from (the service also takes X-Api-Key), compared lower-cased. */
  const KEY_HEADERS = ['api-key', 'x-api-key'];
  /** Key edits settle before the schema is fetched again with the new key. */
  const KEY_SETTLE_MS = 400;
  /**
   * An entity permalink (`/redirect/entity/<guid>`) lands here as `?entity=<guid>`: the editor
   * opens with that entity's query. Only base64 characters reach the query text.
   */
  const permalinkGuid = new URLSearchParams(location.search).get('entity');
  const ENTITY_QUERY = permalinkGuid && /^[A-Za-z0-9+/]{1,400}$/.test(permalinkGuid)
    ? `# The entity of a permalink. Run with Ctrl-Enter or ▶.\n{\n  actor {\n    entity(guid: "${permalinkGuid}") {\n      __typename\n      guid\n      name\n      entityType\n      reporting\n      alertSeverity\n      tags {\n        key\n        values\n      }\n    }\n  }\n}\n`
    : undefined;
  /**
   * The web UI's "Open in GraphiQL" lands here as `?nrql=<text>&account=<id>`: the editor opens on
   * actor.account.nrql with the NRQL as a variable, so the text never becomes part of the document.
   */
  const search = new URLSearchParams(location.search);
  const uiNrql = search.get('nrql');
  const uiAccount = search.get('account');
  const NRQL_QUERY = uiNrql && uiAccount && /^[0-9]{1,12}$/.test(uiAccount)
    ? `# The NRQL a Timeslice UI chart is drawn from. Run with Ctrl-Enter or ▶.\nquery ($nrql: Nrql!) {\n  actor {\n    account(id: ${uiAccount}) {\n      nrql(query: $nrql) {\n        results\n        metadata {\n          facets\n          timeWindow {\n            begin\n            end\n          }\n        }\n      }\n    }\n  }\n}\n`
    : undefined;
  const NO_KEY = 'No API key: put a user API key (NRAK-…) into "Api-Key" in the Headers tab below, or open /graphiql#key=NRAK-…';
  const DEFAULT_QUERY = `# Your user and the APM applications your key's
# account can see. Run with Ctrl-Enter or ▶.
{
  actor {
    user {
      name
    }
    entitySearch(query: "domain = 'APM'") {
      results {
        entities {
          name
          guid
        }
      }
    }
  }
}
`;

  // The fragment never reaches a server; it is dropped from the address bar and history at once so
  // that the key is not left in a bookmark or on a shared screen.
  const fragmentKey = new URLSearchParams(location.hash.slice(1)).get('key') ?? '';
  if (location.hash) history.replaceState(null, '', location.pathname + location.search);
  const initialHeaders = JSON.stringify({ 'Api-Key': fragmentKey }, null, 2);

  const post = GraphiQL.createFetcher({ url: GRAPH_URL, enableIncrementalDelivery: false });

  // GraphiQL keeps the tab state without headers, but its history and favorites keep each
  // request's headers: they are written to localStorage with the key blanked.
  const local = GraphiQL.createLocalStorage({ namespace: 'timeslice' });
  const storage = {
    getItem: (name) => local.getItem(name),
    setItem: (name, value) => local.setItem(name, name === 'graphiql:queries' || name === 'graphiql:favorites' ? withoutKeys(value) : value),
    removeItem: (name) => local.removeItem(name),
    get length() {
      return local.length;
    },
    clear: () => local.clear(),
  };

  function keyIn(headers) {
    if (!headers || typeof headers !== 'object') return '';
    for (const [name, value] of Object.entries(headers)) {
      if (KEY_HEADERS.includes(name.toLowerCase()) && typeof value === 'string' && value.trim() !== '') return value.trim();
    }
    return '';
  }

  function keyInText(text) {
    try {
      return keyIn(JSON.parse(text));
    } catch {
      return '';
    }
  }

  /** `{"queries": [{query, variables, headers, …}]}` with the key headers' values emptied. */
  function withoutKeys(stored) {
    const parsed = JSON.parse(stored);
    for (const entry of parsed.queries ?? []) {
      if (typeof entry.headers !== 'string') continue;
      let headers;
      try {
        headers = JSON.parse(entry.headers);
      } catch {
        entry.headers = null;
        continue;
      }
      if (!headers || typeof headers !== 'object') continue;
      for (const name of Object.keys(headers)) {
        if (KEY_HEADERS.includes(name.toLowerCase())) headers[name] = '';
      }
      entry.headers = JSON.stringify(headers, null, 2);
    }
    return JSON.stringify(parsed);
  }

  // Without a key the service can only refuse, so say where the key goes instead of asking it.
  function newFetcher() {
    return (params, options) => (keyIn(options?.headers) === '' ? Promise.resolve({ errors: [{ message: NO_KEY }] }) : post(params, options));
  }

  function App() {
    // GraphiQL fetches the schema again whenever its fetcher changes, so a new key gets a new one:
    // docs and completion then work once a key is pasted, without reloading the page.
    const [fetcher, setFetcher] = React.useState(newFetcher);
    const fetchedWith = React.useRef(fragmentKey);
    const settle = React.useRef(undefined);
    const onEditHeaders = React.useCallback((text) => {
      clearTimeout(settle.current);
      settle.current = setTimeout(() => {
        const key = keyInText(text);
        if (key === fetchedWith.current) return;
        fetchedWith.current = key;
        setFetcher(newFetcher);
      }, KEY_SETTLE_MS);
    }, []);
    return React.createElement(
      GraphiQL,
      {
        fetcher,
        defaultQuery: DEFAULT_QUERY,
        ...(ENTITY_QUERY ? { query: ENTITY_QUERY } : {}),
        ...(NRQL_QUERY ? { query: NRQL_QUERY, variables: JSON.stringify({ nrql: uiNrql }, null, 2) } : {}),
        headers: initialHeaders,
        defaultHeaders: initialHeaders,
        shouldPersistHeaders: false,
        storage,
        defaultEditorToolsVisibility: 'headers',
        onEditHeaders,
      },
      React.createElement(GraphiQL.Logo, null, 'Timeslice'),
    );
  }

  ReactDOM.createRoot(document.getElementById('graphiql')).render(React.createElement(App));
})();
