// NeMo Gym's stored rollouts were dumped by an older version whose params allowed null for
// `parallel_tool_calls` / `tool_choice`; PIN rejects those nulls. A null in a dump means "unset", so
// re-verification drops null-valued params before posting.
export function withoutNullParams<T extends { responses_create_params?: Record<string, unknown> }>(request: T): T {
  if (!request.responses_create_params) return request;
  return { ...request, responses_create_params: Object.fromEntries(Object.entries(request.responses_create_params).filter(([, v]) => v !== null)) };
}
