// The fields of NeMo Gym's config class (at 07d6b0d) of every server this project ports, written down from its
// app.py and base classes, so a test can check that each one is implemented here or refused by name (never
// silently ignored). A server of our own (scripted_model, relax_gateway_model) has no entry.

/** BaseRunServerInstanceConfig (every server) and BaseRunServerTypeConfig's `datasets`. */
const RUN_SERVER = ["host", "port", "num_workers", "entrypoint", "domain", "name", "datasets"];
/** BaseResourcesServerConfig. */
const RESOURCES_SERVER = [...RUN_SERVER, "expose_tools_over_mcp"];
/** BaseResponsesAPIAgentConfig. */
const AGENT = [...RUN_SERVER, "skip_verification", "skip_verification_reward", "token_id_capture"];
/** BaseResponsesAPIModelConfig adds nothing. */
const MODEL = RUN_SERVER;

/** `<server type>/<name>` → the fields its NeMo Gym config class declares (inherited ones included). */
export const NEMO_GYM_CONFIG_FIELDS: Readonly<Record<string, readonly string[]>> = {
  "resources_servers/arc_agi": RESOURCES_SERVER,
  "resources_servers/bigcodebench": [
    ...RESOURCES_SERVER,
    "num_processes",
    "venv_path",
    "bcb_python_version",
    "max_as_limit",
    "max_data_limit",
    "max_stack_limit",
    "min_time_limit",
    "gt_time_limit",
    "subprocess_timeout",
  ],
  "resources_servers/calendar": RESOURCES_SERVER,
  "resources_servers/code_fim": [...RESOURCES_SERVER, "split", "num_processes", "timeout"],
  "resources_servers/evalplus": [...RESOURCES_SERVER, "dataset", "num_processes", "min_time_limit", "gt_time_limit_factor", "evalplus_version"],
  "resources_servers/cvdp": [
    ...RESOURCES_SERVER,
    "oss_sim_image",
    "oss_pnr_image",
    "eda_sim_image",
    "container_timeout",
    "num_processes",
    "harness_workspace_dir",
    "container_workspace",
    "container_transfer_dir",
    "container_tmp_bind_path",
    "sandbox_provider",
    "sandbox_spec",
    "prepared_images",
    "prepared_image_manifest",
  ],
  "resources_servers/example_multi_step": RESOURCES_SERVER,
  "resources_servers/example_session_state_mgmt": RESOURCES_SERVER,
  "resources_servers/example_single_tool_call": RESOURCES_SERVER,
  "resources_servers/format_verification": RESOURCES_SERVER,
  "resources_servers/gpqa_diamond": [...RESOURCES_SERVER, "grading_mode"],
  "resources_servers/instruction_following": RESOURCES_SERVER,
  "resources_servers/math_advanced_calculations": RESOURCES_SERVER,
  "resources_servers/math_with_judge": [
    ...RESOURCES_SERVER,
    "judge_model_server",
    "judge_responses_create_params",
    "should_use_judge",
    "library_verifier_timeout_seconds",
    "library_verifier_max_concurrency",
  ],
  "resources_servers/mcqa": [...RESOURCES_SERVER, "grading_mode"],
  "resources_servers/nvarc": [...RESOURCES_SERVER, "agent_mode", "python_timeout_seconds"],
  "resources_servers/reasoning_gym": RESOURCES_SERVER,
  "resources_servers/scicode": [...RESOURCES_SERVER, "num_processes", "timeout_secs", "test_data_fpath"],
  "resources_servers/single_step_tool_use_with_argument_comparison": [...RESOURCES_SERVER, "tool_call_comparator_config"],
  "resources_servers/structeval": RESOURCES_SERVER,
  "resources_servers/structured_outputs": [...RESOURCES_SERVER, "xml_coerce_types"],
  "resources_servers/workplace_assistant": RESOURCES_SERVER,
  "resources_servers/xlam_fc": RESOURCES_SERVER,
  "responses_api_agents/simple_agent": [...AGENT, "resources_server", "model_server", "max_steps"],
  "responses_api_agents/tool_simulation_agent": [...AGENT, "resources_server", "model_server"],
  "responses_api_models/openai_model": [
    ...MODEL,
    "openai_base_url",
    "openai_api_key",
    "openai_model",
    "extra_body",
    "openai_default_headers",
    "max_concurrent_requests",
    "drop_input_reasoning_items",
  ],
  "responses_api_models/vllm_model": [
    ...MODEL,
    "base_url",
    "api_key",
    "model",
    "return_token_id_information",
    "request_prompt_and_generation_token_ids",
    "uses_reasoning_parser",
    "uses_interleaved_reasoning",
    "preserve_reasoning_in_assistant_content",
    "replace_developer_role_with_system",
    "sequential_reasoning_allowed",
    "is_responses_native",
    "chat_template_kwargs",
    "sampling_overrides",
    "extra_body",
    "default_headers",
    "audio_root",
    "use_completions_api",
    "render_chat_template",
    "tokenizer",
  ],
};
