// NeMo Gym's Tau2Agent.compute_metrics (responses_api_agents/tau2/app.py), rule by rule, quirks included: a group's
// num_samples_unique counts under the domain of its last rollout; a tool hallucination is any tool message containing
// "not found" (NeMo's `"Error: Tool" and "not found" in content`), named by its text less the prefix/suffix NeMo strips.
type Row = Record<string, any>;

const inc = (m: Record<string, number>, k: string, by = 1) => (m[k] = (m[k] ?? 0) + by);

export function compute(tasks: Row[][]): Record<string, unknown> {
  const domainRewards: Record<string, number[]> = {};
  const unique: Record<string, number> = {};
  const reasonDomain: Record<string, number> = {};
  const reason: Record<string, number> = {};
  const finish: Record<string, number> = {};
  const hallucination: Record<string, number> = {};
  const telecom: Record<string, number[]> = {};
  let transfers = 0;
  let total = 0;
  let missingToolCall = 0;
  let incompleteReasoning = 0;
  for (const group of tasks) {
    let domain = "";
    for (const task of group) {
      domain = task.config.domain;
      (domainRewards[domain] ??= []).push(task.reward);
      if (domain === "telecom") {
        const subtask = String(task.task.id).split("]")[0]!.replace(/^\[/, "");
        (telecom[`telecom/${subtask}/reward`] ??= []).push(task.reward);
      }
      const tr = task.result.termination_reason;
      inc(reason, `trajectory_termination_reason/${tr}/count`);
      inc(reasonDomain, `${domain}/trajectory_termination_reason/${tr}/count`);
      let transferred = false;
      let hasToolCall = false;
      for (const message of task.result.messages as Row[]) {
        if (message.role === "tool" && String(message.content).includes("not found")) {
          let name = String(message.content);
          if (name.startsWith("Error: Tool '")) name = name.slice("Error: Tool '".length);
          if (name.endsWith(" not found.")) name = name.slice(0, -" not found.".length);
          inc(hallucination, `tool_call_hallucination/${name}/count`);
        }
        if (message.role !== "assistant") continue;
        if (message.raw_data && Object.keys(message.raw_data).length > 0) {
          const choice = message.raw_data.choices[0];
          inc(finish, `message_finish_reason/${choice.finish_reason}/count`);
          const raw = choice.message;
          const hasReasoning = raw.reasoning_content != null;
          const isEmpty = !((raw.content ?? "") !== "" || (Array.isArray(raw.tool_calls) ? raw.tool_calls.length > 0 : Boolean(raw.tool_calls)));
          if (isEmpty && hasReasoning) incompleteReasoning++;
        }
        if (!(Array.isArray(message.tool_calls) && message.tool_calls.length > 0)) continue;
        hasToolCall = true;
        if (message.tool_calls[0].name === "transfer_to_human_agents") transferred = true;
      }
      if (!hasToolCall) missingToolCall++;
      if (transferred) transfers++;
      total++;
    }
    inc(unique, `${domain}/num_samples_unique`);
  }
  const totalAssistant = Object.values(finish).reduce((s, v) => s + v, 0);
  const pct = (m: Record<string, number>, denominator: number) => Object.fromEntries(Object.entries(m).map(([k, v]) => [`${k.replace(/\/count$/, "")}/pct`, v / denominator]));
  const counts: Record<string, number> = {};
  const averages: Record<string, number> = {};
  for (const [domain, rewards] of Object.entries(domainRewards)) {
    counts[`${domain}/num_samples_total`] = rewards.length;
    averages[`${domain}/reward`] = rewards.reduce((s, r) => s + r, 0) / rewards.length;
  }
  const macro = Object.values(averages).reduce((s, r) => s + r, 0) / Object.keys(averages).length;
  const reasonDomainPct: Record<string, number> = {};
  for (const [k, v] of Object.entries(reasonDomain)) {
    for (const [domainKey, n] of Object.entries(counts)) {
      // NeMo compares against the "<domain>/num_samples_total" keys, which no reason key starts with: always empty.
      if (k.startsWith(domainKey)) {
        reasonDomainPct[`${k.replace(/\/count$/, "")}/pct`] = v / n;
        break;
      }
    }
  }
  return {
    macro_average: macro,
    ...unique,
    ...counts,
    ...averages,
    ...Object.fromEntries(Object.entries(telecom).map(([k, v]) => [k, v.reduce((s, r) => s + r, 0) / v.length])),
    ...reasonDomain,
    ...reason,
    ...pct(reason, total),
    ...reasonDomainPct,
    ...finish,
    ...pct(finish, totalAssistant),
    "trajectory_transfer_to_human_agents/count": transfers,
    "trajectory_transfer_to_human_agents/pct": transfers / total,
    ...hallucination,
    "tool_call_hallucination/count/total": Object.values(hallucination).reduce((s, v) => s + v, 0),
    "trajectory_missing_tool_call/count": missingToolCall,
    "trajectory_missing_tool_call/pct": missingToolCall / total,
    "messages_with_incomplete_reasoning/count": incompleteReasoning,
    "messages_with_incomplete_reasoning/pct": incompleteReasoning / totalAssistant,
  };
}
