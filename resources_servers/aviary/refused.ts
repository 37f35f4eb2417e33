// Keys of NeMo Gym's other aviary entrypoints' config classes, refused by every entrypoint here: they belong to
// servers this port does not run (client_app.py, hypotest_app.py), so setting one would silently mean nothing.
export const AVIARY_REFUSED_KEYS: Readonly<Record<string, string>> = Object.freeze({
  expose_tools_over_mcp: "an aviary environment's tools come with its /seed_session and run through /step: there is no static tool route to expose over MCP",
  server_url: "AviaryClientResourcesServer (client_app.py, a proxy to a remote aviary TaskDatasetServer) is not ported",
  request_timeout: "AviaryClientResourcesServer (client_app.py, a proxy to a remote aviary TaskDatasetServer) is not ported",
  api_key: "AviaryClientResourcesServer (client_app.py, a proxy to a remote aviary TaskDatasetServer) is not ported",
  dataset: "HypotestResourcesServer (hypotest_app.py: EdisonScientific's hypotest sandboxes under enroot/docker) is not ported",
});
